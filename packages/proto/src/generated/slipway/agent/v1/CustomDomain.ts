// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface CustomDomain {
  'domainId'?: (string);
  'appId'?: (string);
  'hostname'?: (string);
}

export interface CustomDomain__Output {
  'domainId': (string);
  'appId': (string);
  'hostname': (string);
}
