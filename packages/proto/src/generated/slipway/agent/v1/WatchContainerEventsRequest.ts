// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface WatchContainerEventsRequest {
}

export interface WatchContainerEventsRequest__Output {
}
