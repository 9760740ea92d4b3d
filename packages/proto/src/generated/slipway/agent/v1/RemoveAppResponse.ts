// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveAppResponse {
  'containers'?: (number);
  'images'?: (number);
  'replayed'?: (boolean);
}

export interface RemoveAppResponse__Output {
  'containers': (number);
  'images': (number);
  'replayed': (boolean);
}
