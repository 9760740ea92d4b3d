// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface NoopRequest {
  'operationId'?: (string);
  'delayMs'?: (number);
}

export interface NoopRequest__Output {
  'operationId': (string);
  'delayMs': (number);
}
