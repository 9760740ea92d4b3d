// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface RemoveBackupFoldersResponse {
  'removed'?: (number);
}

export interface RemoveBackupFoldersResponse__Output {
  'removed': (number);
}
