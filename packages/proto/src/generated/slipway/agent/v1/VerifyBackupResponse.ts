// Original file: ../../proto/slipway/agent/v1/backups.proto


export interface VerifyBackupResponse {
  'ok'?: (boolean);
  'method'?: (string);
  'message'?: (string);
}

export interface VerifyBackupResponse__Output {
  'ok': (boolean);
  'method': (string);
  'message': (string);
}
