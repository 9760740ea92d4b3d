// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface GetDatabaseCaRequest {
}

export interface GetDatabaseCaRequest__Output {
}
