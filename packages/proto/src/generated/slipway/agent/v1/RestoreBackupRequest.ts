// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface RestoreBackupRequest {
  /**
   * the database loaded (running, same engine)
   */
  'databaseId'?: (string);
  'engine'?: (string);
  'username'?: (string);
  'databaseName'?: (string);
  'password'?: (string);
  /**
   * where the backup is kept
   */
  'sourceDatabaseId'?: (string);
  'backupId'?: (string);
  /**
   * the checksum the control plane recorded; the file must still have it
   */
  'sha256'?: (string);
}

export interface RestoreBackupRequest__Output {
  /**
   * the database loaded (running, same engine)
   */
  'databaseId': (string);
  'engine': (string);
  'username': (string);
  'databaseName': (string);
  'password': (string);
  /**
   * where the backup is kept
   */
  'sourceDatabaseId': (string);
  'backupId': (string);
  /**
   * the checksum the control plane recorded; the file must still have it
   */
  'sha256': (string);
}
