// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface GetDatabaseCaResponse {
  'caPem'?: (string);
}

export interface GetDatabaseCaResponse__Output {
  'caPem': (string);
}
