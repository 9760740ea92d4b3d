// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface ExportFolderRequest {
  'appId'?: (string);
}

export interface ExportFolderRequest__Output {
  'appId': (string);
}
