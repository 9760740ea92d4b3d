// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface StopDatabaseRequest {
  'operationId'?: (string);
  'databaseId'?: (string);
}

export interface StopDatabaseRequest__Output {
  'operationId': (string);
  'databaseId': (string);
}
