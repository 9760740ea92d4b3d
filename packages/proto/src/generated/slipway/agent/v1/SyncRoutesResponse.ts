// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface SyncRoutesResponse {
  'added'?: (number);
  'removed'?: (number);
}

export interface SyncRoutesResponse__Output {
  'added': (number);
  'removed': (number);
}
