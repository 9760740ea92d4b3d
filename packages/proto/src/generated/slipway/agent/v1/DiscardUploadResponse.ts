// Original file: ../../proto/slipway/agent/v1/build.proto


export interface DiscardUploadResponse {
  'removed'?: (boolean);
}

export interface DiscardUploadResponse__Output {
  'removed': (boolean);
}
