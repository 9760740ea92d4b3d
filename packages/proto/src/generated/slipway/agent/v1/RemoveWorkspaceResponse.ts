// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveWorkspaceResponse {
  'containers'?: (number);
  'images'?: (number);
  'networks'?: (number);
  'replayed'?: (boolean);
}

export interface RemoveWorkspaceResponse__Output {
  'containers': (number);
  'images': (number);
  'networks': (number);
  'replayed': (boolean);
}
