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
}
