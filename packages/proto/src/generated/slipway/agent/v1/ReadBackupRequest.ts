// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface ReadBackupRequest {
  'databaseId'?: (string);
  'backupId'?: (string);
}

export interface ReadBackupRequest__Output {
  'databaseId': (string);
  'backupId': (string);
}
