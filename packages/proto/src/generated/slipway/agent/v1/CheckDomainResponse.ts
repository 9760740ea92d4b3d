// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface CheckDomainResponse {
  'a'?: (string)[];
  'aaaa'?: (string)[];
  'txt'?: (string)[];
  'cnames'?: (string)[];
  'error'?: (string);
}

export interface CheckDomainResponse__Output {
  'a': (string)[];
  'aaaa': (string)[];
  'txt': (string)[];
  'cnames': (string)[];
  'error': (string);
}
