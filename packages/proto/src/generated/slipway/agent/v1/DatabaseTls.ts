// Original file: ../../proto/slipway/agent/v1/databases.proto


/**
 * The TLS certificate the engine serves on public (and private TLS) connections. Empty: the agent's own
 * certificate from its enrollment (signed by the platform CA; SANs: the node name and the addresses it enrolled
 * with). The control plane may send a dedicated one with the server's public addresses as SANs.
 */
export interface DatabaseTls {
  'certPem'?: (string);
  'keyPem'?: (string);
}

/**
 * The TLS certificate the engine serves on public (and private TLS) connections. Empty: the agent's own
 * certificate from its enrollment (signed by the platform CA; SANs: the node name and the addresses it enrolled
 * with). The control plane may send a dedicated one with the server's public addresses as SANs.
 */
export interface DatabaseTls__Output {
  'certPem': (string);
  'keyPem': (string);
}
