// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface ImportHeader {
  'operationId'?: (string);
  'workspaceId'?: (string);
  /**
   * ImportFolder only.
   */
  'appId'?: (string);
  'diskMb'?: (number);
  'seededImageRef'?: (string);
}

export interface ImportHeader__Output {
  'operationId': (string);
  'workspaceId': (string);
  /**
   * ImportFolder only.
   */
  'appId': (string);
  'diskMb': (number);
  'seededImageRef': (string);
}
