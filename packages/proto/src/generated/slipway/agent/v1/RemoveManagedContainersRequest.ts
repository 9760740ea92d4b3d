// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveManagedContainersRequest {
  'operationId'?: (string);
  'containerIds'?: (string)[];
}

export interface RemoveManagedContainersRequest__Output {
  'operationId': (string);
  'containerIds': (string)[];
}
