// Original file: ../../proto/slipway/agent/v1/files.proto


export interface WriteFileHeader {
  'appId'?: (string);
  'path'?: (string);
}

export interface WriteFileHeader__Output {
  'appId': (string);
  'path': (string);
}
