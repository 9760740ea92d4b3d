// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface RotateDatabasePasswordRequest {
  'operationId'?: (string);
  'databaseId'?: (string);
  /**
   * Needed by engines whose admin client authenticates inside the container (mysql, mongodb, redis).
   */
  'currentPassword'?: (string);
  'newPassword'?: (string);
}

export interface RotateDatabasePasswordRequest__Output {
  'operationId': (string);
  'databaseId': (string);
  /**
   * Needed by engines whose admin client authenticates inside the container (mysql, mongodb, redis).
   */
  'currentPassword': (string);
  'newPassword': (string);
}
