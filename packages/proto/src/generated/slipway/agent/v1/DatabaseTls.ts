// Original file: ../../proto/slipway/agent/v1/databases.proto


/**
 * The TLS certificate the engine serves on public (and private TLS) connections: the control plane's database
 * certificate (its database CA; SANs the server's public addresses), the same pair every time. Empty: a certificate
 * of the agent's own databases CA (`<data dir>/database-tls`; SANs the public addresses, the gRPC host, 127.0.0.1,
 * ::1), never the agent's enrollment key (a database superuser can read the key its engine serves).
 */
export interface DatabaseTls {
  'certPem'?: (string);
  'keyPem'?: (string);
}

/**
 * The TLS certificate the engine serves on public (and private TLS) connections: the control plane's database
 * certificate (its database CA; SANs the server's public addresses), the same pair every time. Empty: a certificate
 * of the agent's own databases CA (`<data dir>/database-tls`; SANs the public addresses, the gRPC host, 127.0.0.1,
 * ::1), never the agent's enrollment key (a database superuser can read the key its engine serves).
 */
export interface DatabaseTls__Output {
  'certPem': (string);
  'keyPem': (string);
}
