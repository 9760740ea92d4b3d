// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface BackupRequest {
  'databaseId'?: (string);
  'backupId'?: (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine'?: (string);
  'username'?: (string);
  'databaseName'?: (string);
  'password'?: (string);
  /**
   * VerifyBackup: also load the file into a throw-away container of the engine's image (no network), removed after.
   */
  'load'?: (boolean);
}

export interface BackupRequest__Output {
  'databaseId': (string);
  'backupId': (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine': (string);
  'username': (string);
  'databaseName': (string);
  'password': (string);
  /**
   * VerifyBackup: also load the file into a throw-away container of the engine's image (no network), removed after.
   */
  'load': (boolean);
}
