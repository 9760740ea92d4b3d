// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface ImportCertificatesResponse {
  'stored'?: (number);
}

export interface ImportCertificatesResponse__Output {
  'stored': (number);
}
