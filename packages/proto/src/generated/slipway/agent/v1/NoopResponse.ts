// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface NoopResponse {
  'operationId'?: (string);
  /**
   * Milliseconds since the epoch (fractional), on the agent's clock.
   */
  'startedAtMs'?: (number | string);
  'finishedAtMs'?: (number | string);
  /**
   * True when the answer comes from the journal: the work was done by an earlier call.
   */
  'replayed'?: (boolean);
}

export interface NoopResponse__Output {
  'operationId': (string);
  /**
   * Milliseconds since the epoch (fractional), on the agent's clock.
   */
  'startedAtMs': (number);
  'finishedAtMs': (number);
  /**
   * True when the answer comes from the journal: the work was done by an earlier call.
   */
  'replayed': (boolean);
}
