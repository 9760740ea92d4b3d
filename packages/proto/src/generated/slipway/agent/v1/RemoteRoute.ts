// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoteRoute {
  'appId'?: (string);
  'host'?: (string);
  /**
   * host:port of the owning server's mesh listener.
   */
  'ownerAddress'?: (string);
  /**
   * The owning server's node name: its certificate is for <name>.agent.slipway.
   */
  'ownerName'?: (string);
}

export interface RemoteRoute__Output {
  'appId': (string);
  'host': (string);
  /**
   * host:port of the owning server's mesh listener.
   */
  'ownerAddress': (string);
  /**
   * The owning server's node name: its certificate is for <name>.agent.slipway.
   */
  'ownerName': (string);
}
