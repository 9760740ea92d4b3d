// Original file: ../../proto/slipway/agent/v1/files.proto


export interface FilesOk {
  'ok'?: (boolean);
}

export interface FilesOk__Output {
  'ok': (boolean);
}
