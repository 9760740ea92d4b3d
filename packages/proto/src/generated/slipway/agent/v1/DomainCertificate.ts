// Original file: ../../proto/slipway/agent/v1/domains.proto


export interface DomainCertificate {
  'hostname'?: (string);
  /**
   * none | pending | issued | failed
   */
  'status'?: (string);
  'issuer'?: (string);
  /**
   * Epoch milliseconds; 0 when there is no certificate.
   */
  'notAfterMs'?: (number | string);
  'error'?: (string);
  /**
   * With `with_keys`: the chain and key Caddy obtained (PEM); empty when not found.
   */
  'certificatePem'?: (string);
  'keyPem'?: (string);
}

export interface DomainCertificate__Output {
  'hostname': (string);
  /**
   * none | pending | issued | failed
   */
  'status': (string);
  'issuer': (string);
  /**
   * Epoch milliseconds; 0 when there is no certificate.
   */
  'notAfterMs': (number);
  'error': (string);
  /**
   * With `with_keys`: the chain and key Caddy obtained (PEM); empty when not found.
   */
  'certificatePem': (string);
  'keyPem': (string);
}
