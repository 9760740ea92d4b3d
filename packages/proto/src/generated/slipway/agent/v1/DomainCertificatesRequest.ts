// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface DomainCertificatesRequest {
  'hostnames'?: (string)[];
  /**
   * Also the certificate chain and key (PEM) of each issued one, read from this server's certificate storage: the
   * control plane hands them to the other servers (issue 31). Only the control plane's mTLS client can ask.
   */
  'withKeys'?: (boolean);
}

export interface DomainCertificatesRequest__Output {
  'hostnames': (string)[];
  /**
   * Also the certificate chain and key (PEM) of each issued one, read from this server's certificate storage: the
   * control plane hands them to the other servers (issue 31). Only the control plane's mTLS client can ask.
   */
  'withKeys': (boolean);
}
