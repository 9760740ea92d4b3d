// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { DiskInfo as _slipway_agent_v1_DiskInfo, DiskInfo__Output as _slipway_agent_v1_DiskInfo__Output } from '../../../slipway/agent/v1/DiskInfo';

export interface NodeInfo {
  'name'?: (string);
  'version'?: (string);
  'cpuMillis'?: (number);
  'memoryMb'?: (number);
  'publicIpv4'?: (string)[];
  'grpcAddress'?: (string);
  'disk'?: (_slipway_agent_v1_DiskInfo | null);
}

export interface NodeInfo__Output {
  'name': (string);
  'version': (string);
  'cpuMillis': (number);
  'memoryMb': (number);
  'publicIpv4': (string)[];
  'grpcAddress': (string);
  'disk': (_slipway_agent_v1_DiskInfo__Output | null);
}
