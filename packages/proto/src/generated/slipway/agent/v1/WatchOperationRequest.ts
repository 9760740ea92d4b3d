// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface WatchOperationRequest {
  'operationId'?: (string);
}

export interface WatchOperationRequest__Output {
  'operationId': (string);
}
