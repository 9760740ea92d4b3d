// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { AppRoute as _slipway_agent_v1_AppRoute, AppRoute__Output as _slipway_agent_v1_AppRoute__Output } from '../../../slipway/agent/v1/AppRoute';
import type { RemoteRoute as _slipway_agent_v1_RemoteRoute, RemoteRoute__Output as _slipway_agent_v1_RemoteRoute__Output } from '../../../slipway/agent/v1/RemoteRoute';

export interface SyncRoutesRequest {
  'routes'?: (_slipway_agent_v1_AppRoute)[];
  /**
   * Apps of the other servers (issue 31): this server's ingress proxies their hosts to the owning server's mesh
   * listener over TLS, checking its certificate against the platform's CA.
   */
  'remote'?: (_slipway_agent_v1_RemoteRoute)[];
}

export interface SyncRoutesRequest__Output {
  'routes': (_slipway_agent_v1_AppRoute__Output)[];
  /**
   * Apps of the other servers (issue 31): this server's ingress proxies their hosts to the owning server's mesh
   * listener over TLS, checking its certificate against the platform's CA.
   */
  'remote': (_slipway_agent_v1_RemoteRoute__Output)[];
}
