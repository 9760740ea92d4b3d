// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { AppRoute as _slipway_agent_v1_AppRoute, AppRoute__Output as _slipway_agent_v1_AppRoute__Output } from '../../../slipway/agent/v1/AppRoute';

export interface SyncRoutesRequest {
  'routes'?: (_slipway_agent_v1_AppRoute)[];
}

export interface SyncRoutesRequest__Output {
  'routes': (_slipway_agent_v1_AppRoute__Output)[];
}
