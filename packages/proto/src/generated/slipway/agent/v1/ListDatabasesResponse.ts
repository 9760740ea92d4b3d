// Original file: ../../proto/slipway/agent/v1/databases.proto

import type { DatabaseOnNode as _slipway_agent_v1_DatabaseOnNode, DatabaseOnNode__Output as _slipway_agent_v1_DatabaseOnNode__Output } from '../../../slipway/agent/v1/DatabaseOnNode';

export interface ListDatabasesResponse {
  'databases'?: (_slipway_agent_v1_DatabaseOnNode)[];
}

export interface ListDatabasesResponse__Output {
  'databases': (_slipway_agent_v1_DatabaseOnNode__Output)[];
}
