// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface DatabasePublicAccess {
  'enabled'?: (boolean);
  /**
   * 20000-20999, chosen by the control plane (unique per server in its rows); the agent binds it or answers
   * `invalid_state` (port taken). Ignored when not enabled.
   */
  'port'?: (number);
  /**
   * IPv4/IPv6 CIDRs (normalised, see apps/agent/src/databases/cidr.ts); a peer outside them is cut before any
   * database byte. Enabled with an empty list admits nobody.
   */
  'allowedCidrs'?: (string)[];
}

export interface DatabasePublicAccess__Output {
  'enabled': (boolean);
  /**
   * 20000-20999, chosen by the control plane (unique per server in its rows); the agent binds it or answers
   * `invalid_state` (port taken). Ignored when not enabled.
   */
  'port': (number);
  /**
   * IPv4/IPv6 CIDRs (normalised, see apps/agent/src/databases/cidr.ts); a peer outside them is cut before any
   * database byte. Enabled with an empty list admits nobody.
   */
  'allowedCidrs': (string)[];
}
