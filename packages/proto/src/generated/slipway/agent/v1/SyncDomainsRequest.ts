// Original file: ../../proto/slipway/agent/v1/domains.proto

import type { CustomDomain as _slipway_agent_v1_CustomDomain, CustomDomain__Output as _slipway_agent_v1_CustomDomain__Output } from '../../../slipway/agent/v1/CustomDomain';

export interface SyncDomainsRequest {
  'domains'?: (_slipway_agent_v1_CustomDomain)[];
}

export interface SyncDomainsRequest__Output {
  'domains': (_slipway_agent_v1_CustomDomain__Output)[];
}
