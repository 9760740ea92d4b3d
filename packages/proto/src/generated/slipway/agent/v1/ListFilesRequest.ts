// Original file: ../../proto/slipway/agent/v1/files.proto


export interface ListFilesRequest {
  'appId'?: (string);
  'path'?: (string);
  'limit'?: (number);
}

export interface ListFilesRequest__Output {
  'appId': (string);
  'path': (string);
  'limit': (number);
}
