// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface ListDatabasesRequest {
  /**
   * Empty: every workspace.
   */
  'workspaceId'?: (string);
}

export interface ListDatabasesRequest__Output {
  /**
   * Empty: every workspace.
   */
  'workspaceId': (string);
}
