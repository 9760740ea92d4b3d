// Original file: ../../proto/slipway/agent/v1/agent.proto


/**
 * The file system of the agent's data directory (project folders, uploads, builds, images' room).
 */
export interface DiskInfo {
  'totalMb'?: (number);
  'freeMb'?: (number);
  /**
   * Free disk kept for running apps: below it new builds, deployments and uploads are refused.
   */
  'reserveMb'?: (number);
  'low'?: (boolean);
  /**
   * Sum of the project folders' sizes, and their number.
   */
  'allocatedMb'?: (number);
  'folders'?: (number);
}

/**
 * The file system of the agent's data directory (project folders, uploads, builds, images' room).
 */
export interface DiskInfo__Output {
  'totalMb': (number);
  'freeMb': (number);
  /**
   * Free disk kept for running apps: below it new builds, deployments and uploads are refused.
   */
  'reserveMb': (number);
  'low': (boolean);
  /**
   * Sum of the project folders' sizes, and their number.
   */
  'allocatedMb': (number);
  'folders': (number);
}
