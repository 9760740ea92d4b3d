// Original file: ../../proto/slipway/agent/v1/files.proto


export interface ReadFileRequest {
  'appId'?: (string);
  'path'?: (string);
}

export interface ReadFileRequest__Output {
  'appId': (string);
  'path': (string);
}
