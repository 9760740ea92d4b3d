// Original file: ../../proto/slipway/agent/v1/domains.proto

import type { DomainCertificate as _slipway_agent_v1_DomainCertificate, DomainCertificate__Output as _slipway_agent_v1_DomainCertificate__Output } from '../../../slipway/agent/v1/DomainCertificate';

export interface DomainCertificatesResponse {
  'certificates'?: (_slipway_agent_v1_DomainCertificate)[];
}

export interface DomainCertificatesResponse__Output {
  'certificates': (_slipway_agent_v1_DomainCertificate__Output)[];
}
