// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface OperationProgress {
  'operationId'?: (string);
  /**
   * unknown (never seen), started, done, failed
   */
  'state'?: (string);
  'message'?: (string);
  'atMs'?: (number | string);
}

export interface OperationProgress__Output {
  'operationId': (string);
  /**
   * unknown (never seen), started, done, failed
   */
  'state': (string);
  'message': (string);
  'atMs': (number);
}
