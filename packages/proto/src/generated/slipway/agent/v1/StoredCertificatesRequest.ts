// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface StoredCertificatesRequest {
  'hostnames'?: (string)[];
}

export interface StoredCertificatesRequest__Output {
  'hostnames': (string)[];
}
