// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface AppPowerResponse {
  'replayed'?: (boolean);
}

export interface AppPowerResponse__Output {
  'replayed': (boolean);
}
