// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface RemoveBackupFoldersRequest {
  'databaseIds'?: (string)[];
}

export interface RemoveBackupFoldersRequest__Output {
  'databaseIds': (string)[];
}
