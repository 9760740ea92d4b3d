// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface DatabaseOnNode {
  'databaseId'?: (string);
  'workspaceId'?: (string);
  'slug'?: (string);
  'engine'?: (string);
  'containerId'?: (string);
  /**
   * running, stopped (created/exited), missing (data without a container)
   */
  'state'?: (string);
  /**
   * The data folder exists.
   */
  'hasData'?: (boolean);
  'publicPort'?: (number);
  'cpuMillis'?: (number);
  'memoryMb'?: (number);
  'image'?: (string);
}

export interface DatabaseOnNode__Output {
  'databaseId': (string);
  'workspaceId': (string);
  'slug': (string);
  'engine': (string);
  'containerId': (string);
  /**
   * running, stopped (created/exited), missing (data without a container)
   */
  'state': (string);
  /**
   * The data folder exists.
   */
  'hasData': (boolean);
  'publicPort': (number);
  'cpuMillis': (number);
  'memoryMb': (number);
  'image': (string);
}
