// Original file: ../../proto/slipway/agent/v1/domains.proto


/**
 * Another server's custom domain (issue 31, docs/decisions/0034-custom-domains-across-servers.md).
 */
export interface RemoteDomain {
  'domainId'?: (string);
  'appId'?: (string);
  'hostname'?: (string);
  /**
   * The owner's mesh listener (host:port) and its node name (its certificate is `<name>.agent.slipway`).
   */
  'ownerAddress'?: (string);
  'ownerName'?: (string);
  /**
   * Where HTTP-01 challenges for the hostname are forwarded: the owner's ingress (host:port, plain HTTP).
   */
  'challengeAddress'?: (string);
  /**
   * The certificate and key the owner obtained (PEM); empty: keep the one already loaded for this hostname, if any.
   */
  'certificatePem'?: (string);
  'keyPem'?: (string);
}

/**
 * Another server's custom domain (issue 31, docs/decisions/0034-custom-domains-across-servers.md).
 */
export interface RemoteDomain__Output {
  'domainId': (string);
  'appId': (string);
  'hostname': (string);
  /**
   * The owner's mesh listener (host:port) and its node name (its certificate is `<name>.agent.slipway`).
   */
  'ownerAddress': (string);
  'ownerName': (string);
  /**
   * Where HTTP-01 challenges for the hostname are forwarded: the owner's ingress (host:port, plain HTTP).
   */
  'challengeAddress': (string);
  /**
   * The certificate and key the owner obtained (PEM); empty: keep the one already loaded for this hostname, if any.
   */
  'certificatePem': (string);
  'keyPem': (string);
}
