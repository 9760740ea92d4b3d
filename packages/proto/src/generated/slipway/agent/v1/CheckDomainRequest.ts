// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface CheckDomainRequest {
  'hostname'?: (string);
  'txtName'?: (string);
}

export interface CheckDomainRequest__Output {
  'hostname': (string);
  'txtName': (string);
}
