// Original file: ../../proto/slipway/agent/v1/agent.proto


/**
 * Empty fields match any value; set fields must all match.
 */
export interface LabelFilter {
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
  'databaseId'?: (string);
}

/**
 * Empty fields match any value; set fields must all match.
 */
export interface LabelFilter__Output {
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
  'databaseId': (string);
}
