// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface TailContainerLogsRequest {
  'containerId'?: (string);
  'tail'?: (number);
  'follow'?: (boolean);
}

export interface TailContainerLogsRequest__Output {
  'containerId': (string);
  'tail': (number);
  'follow': (boolean);
}
