// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface AppFolderUsage {
  'appId'?: (string);
  'limitMb'?: (number);
  'usedMb'?: (number);
}

export interface AppFolderUsage__Output {
  'appId': (string);
  'limitMb': (number);
  'usedMb': (number);
}
