// Original file: ../../proto/slipway/agent/v1/metrics.proto


export interface NodeUsageRequest {
}

export interface NodeUsageRequest__Output {
}
