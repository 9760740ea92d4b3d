// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface SyncDomainsResponse {
  'added'?: (number);
  'removed'?: (number);
}

export interface SyncDomainsResponse__Output {
  'added': (number);
  'removed': (number);
}
