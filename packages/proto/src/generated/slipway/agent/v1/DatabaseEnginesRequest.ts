// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface DatabaseEnginesRequest {
}

export interface DatabaseEnginesRequest__Output {
}
