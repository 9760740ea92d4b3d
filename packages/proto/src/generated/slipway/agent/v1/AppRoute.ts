// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface AppRoute {
  'appId'?: (string);
  'host'?: (string);
  'upstreamPort'?: (number);
}

export interface AppRoute__Output {
  'appId': (string);
  'host': (string);
  'upstreamPort': (number);
}
