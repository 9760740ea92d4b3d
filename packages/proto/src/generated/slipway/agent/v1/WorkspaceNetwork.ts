// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface WorkspaceNetwork {
  'id'?: (string);
  'name'?: (string);
  'workspaceId'?: (string);
  'subnets'?: (string)[];
}

export interface WorkspaceNetwork__Output {
  'id': (string);
  'name': (string);
  'workspaceId': (string);
  'subnets': (string)[];
}
