// Original file: ../../proto/slipway/agent/v1/files.proto


export interface DeleteFileRequest {
  'appId'?: (string);
  'path'?: (string);
  'recursive'?: (boolean);
}

export interface DeleteFileRequest__Output {
  'appId': (string);
  'path': (string);
  'recursive': (boolean);
}
