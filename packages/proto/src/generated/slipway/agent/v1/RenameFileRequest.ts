// Original file: ../../proto/slipway/agent/v1/files.proto


export interface RenameFileRequest {
  'appId'?: (string);
  'from'?: (string);
  'to'?: (string);
}

export interface RenameFileRequest__Output {
  'appId': (string);
  'from': (string);
  'to': (string);
}
