// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface DatabaseStatus {
  'databaseId'?: (string);
  'containerId'?: (string);
  /**
   * running, stopped, missing (no container), failed
   */
  'state'?: (string);
  /**
   * `<slug>.internal`
   */
  'internalHost'?: (string);
  /**
   * The engine's port on the private network (5432, 3306, 6379, 27017).
   */
  'port'?: (number);
  /**
   * The container's address on the workspace network (empty when not running).
   */
  'ipAddress'?: (string);
  /**
   * The public port listened on (0: closed).
   */
  'publicPort'?: (number);
  'image'?: (string);
  /**
   * Why `failed` (last log lines of the engine).
   */
  'message'?: (string);
  'replayed'?: (boolean);
}

export interface DatabaseStatus__Output {
  'databaseId': (string);
  'containerId': (string);
  /**
   * running, stopped, missing (no container), failed
   */
  'state': (string);
  /**
   * `<slug>.internal`
   */
  'internalHost': (string);
  /**
   * The engine's port on the private network (5432, 3306, 6379, 27017).
   */
  'port': (number);
  /**
   * The container's address on the workspace network (empty when not running).
   */
  'ipAddress': (string);
  /**
   * The public port listened on (0: closed).
   */
  'publicPort': (number);
  'image': (string);
  /**
   * Why `failed` (last log lines of the engine).
   */
  'message': (string);
  'replayed': (boolean);
}
