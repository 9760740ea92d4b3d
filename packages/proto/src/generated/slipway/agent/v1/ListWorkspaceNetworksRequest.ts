// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface ListWorkspaceNetworksRequest {
}

export interface ListWorkspaceNetworksRequest__Output {
}
