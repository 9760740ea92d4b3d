// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface DomainCertificatesRequest {
  'hostnames'?: (string)[];
}

export interface DomainCertificatesRequest__Output {
  'hostnames': (string)[];
}
