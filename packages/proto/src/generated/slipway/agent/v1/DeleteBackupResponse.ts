// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface DeleteBackupResponse {
  'removed'?: (boolean);
}

export interface DeleteBackupResponse__Output {
  'removed': (boolean);
}
