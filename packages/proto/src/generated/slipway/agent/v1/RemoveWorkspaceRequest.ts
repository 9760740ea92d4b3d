// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RemoveWorkspaceRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  /**
   * The workspace's apps (deleted ones included): their images, routes and folders are found by app id.
   */
  'appIds'?: (string)[];
}

export interface RemoveWorkspaceRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  /**
   * The workspace's apps (deleted ones included): their images, routes and folders are found by app id.
   */
  'appIds': (string)[];
}
