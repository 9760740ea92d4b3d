// Original file: ../../proto/slipway/agent/v1/databases.proto

import type { DatabaseEngineImage as _slipway_agent_v1_DatabaseEngineImage, DatabaseEngineImage__Output as _slipway_agent_v1_DatabaseEngineImage__Output } from '../../../slipway/agent/v1/DatabaseEngineImage';

export interface DatabaseEnginesResponse {
  'engines'?: (_slipway_agent_v1_DatabaseEngineImage)[];
}

export interface DatabaseEnginesResponse__Output {
  'engines': (_slipway_agent_v1_DatabaseEngineImage__Output)[];
}
