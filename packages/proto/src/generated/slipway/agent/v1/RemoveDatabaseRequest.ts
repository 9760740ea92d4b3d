// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface RemoveDatabaseRequest {
  'operationId'?: (string);
  'databaseId'?: (string);
}

export interface RemoveDatabaseRequest__Output {
  'operationId': (string);
  'databaseId': (string);
}
