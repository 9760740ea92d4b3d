// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { WorkspaceNetwork as _slipway_agent_v1_WorkspaceNetwork, WorkspaceNetwork__Output as _slipway_agent_v1_WorkspaceNetwork__Output } from '../../../slipway/agent/v1/WorkspaceNetwork';

export interface ListWorkspaceNetworksResponse {
  'networks'?: (_slipway_agent_v1_WorkspaceNetwork)[];
}

export interface ListWorkspaceNetworksResponse__Output {
  'networks': (_slipway_agent_v1_WorkspaceNetwork__Output)[];
}
