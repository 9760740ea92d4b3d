// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface PrepareImageRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
  /**
   * The reference to pull, or for a rollback the earlier deployment's tag (never pulled).
   */
  'image'?: (string);
  'localOnly'?: (boolean);
}

export interface PrepareImageRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
  /**
   * The reference to pull, or for a rollback the earlier deployment's tag (never pulled).
   */
  'image': (string);
  'localOnly': (boolean);
}
