// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { LabelFilter as _slipway_agent_v1_LabelFilter, LabelFilter__Output as _slipway_agent_v1_LabelFilter__Output } from '../../../slipway/agent/v1/LabelFilter';

export interface ListManagedContainersRequest {
  'filter'?: (_slipway_agent_v1_LabelFilter | null);
}

export interface ListManagedContainersRequest__Output {
  'filter': (_slipway_agent_v1_LabelFilter__Output | null);
}
