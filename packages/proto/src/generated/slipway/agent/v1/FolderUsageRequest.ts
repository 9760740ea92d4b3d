// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface FolderUsageRequest {
  'appIds'?: (string)[];
}

export interface FolderUsageRequest__Output {
  'appIds': (string)[];
}
