// Original file: ../../proto/slipway/agent/v1/build.proto


export interface BuildZipRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
}

export interface BuildZipRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
}
