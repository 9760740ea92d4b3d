// Original file: ../../proto/slipway/agent/v1/build.proto


export interface DiscardUploadRequest {
  'deploymentId'?: (string);
}

export interface DiscardUploadRequest__Output {
  'deploymentId': (string);
}
