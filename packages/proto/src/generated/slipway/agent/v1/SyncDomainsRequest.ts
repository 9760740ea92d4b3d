// Original file: ../../proto/slipway/agent/v1/domains.proto

import type { CustomDomain as _slipway_agent_v1_CustomDomain, CustomDomain__Output as _slipway_agent_v1_CustomDomain__Output } from '../../../slipway/agent/v1/CustomDomain';
import type { RemoteDomain as _slipway_agent_v1_RemoteDomain, RemoteDomain__Output as _slipway_agent_v1_RemoteDomain__Output } from '../../../slipway/agent/v1/RemoteDomain';

export interface SyncDomainsRequest {
  'domains'?: (_slipway_agent_v1_CustomDomain)[];
  'remote'?: (_slipway_agent_v1_RemoteDomain)[];
}

export interface SyncDomainsRequest__Output {
  'domains': (_slipway_agent_v1_CustomDomain__Output)[];
  'remote': (_slipway_agent_v1_RemoteDomain__Output)[];
}
