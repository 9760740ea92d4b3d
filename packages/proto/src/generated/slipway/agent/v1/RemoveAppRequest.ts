// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveAppRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
}

export interface RemoveAppRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
}
