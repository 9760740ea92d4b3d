// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface RemoveDatabaseResponse {
  'containerRemoved'?: (boolean);
  'dataRemoved'?: (boolean);
  'replayed'?: (boolean);
}

export interface RemoveDatabaseResponse__Output {
  'containerRemoved': (boolean);
  'dataRemoved': (boolean);
  'replayed': (boolean);
}
