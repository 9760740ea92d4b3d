// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { ManagedContainer as _slipway_agent_v1_ManagedContainer, ManagedContainer__Output as _slipway_agent_v1_ManagedContainer__Output } from '../../../slipway/agent/v1/ManagedContainer';

export interface ListManagedContainersResponse {
  'containers'?: (_slipway_agent_v1_ManagedContainer)[];
}

export interface ListManagedContainersResponse__Output {
  'containers': (_slipway_agent_v1_ManagedContainer__Output)[];
}
