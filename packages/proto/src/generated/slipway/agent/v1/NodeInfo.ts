// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface NodeInfo {
  'name'?: (string);
  'version'?: (string);
  'cpuMillis'?: (number);
  'memoryMb'?: (number);
  'publicIpv4'?: (string)[];
  'grpcAddress'?: (string);
}

export interface NodeInfo__Output {
  'name': (string);
  'version': (string);
  'cpuMillis': (number);
  'memoryMb': (number);
  'publicIpv4': (string)[];
  'grpcAddress': (string);
}
