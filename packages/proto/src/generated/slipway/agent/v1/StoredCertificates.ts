// Original file: ../../proto/slipway/agent/v1/domains.proto

import type { StoredCertificate as _slipway_agent_v1_StoredCertificate, StoredCertificate__Output as _slipway_agent_v1_StoredCertificate__Output } from '../../../slipway/agent/v1/StoredCertificate';

export interface StoredCertificates {
  'certificates'?: (_slipway_agent_v1_StoredCertificate)[];
}

export interface StoredCertificates__Output {
  'certificates': (_slipway_agent_v1_StoredCertificate__Output)[];
}
