// Original file: ../../proto/slipway/agent/v1/build.proto


export interface UploadZipHeader {
  'deploymentId'?: (string);
}

export interface UploadZipHeader__Output {
  'deploymentId': (string);
}
