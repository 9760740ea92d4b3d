// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveManagedContainersResponse {
  'removed'?: (string)[];
  /**
   * Ids that were already gone, or carried no slipway label and were left alone.
   */
  'skipped'?: (string)[];
  'replayed'?: (boolean);
}

export interface RemoveManagedContainersResponse__Output {
  'removed': (string)[];
  /**
   * Ids that were already gone, or carried no slipway label and were left alone.
   */
  'skipped': (string)[];
  'replayed': (boolean);
}
