// Original file: ../../proto/slipway/agent/v1/metrics.proto


export interface NodeUsageResponse {
  /**
   * Cores of the server in millis, and what its containers used on average over the last sampling interval.
   */
  'cpuTotalMillis'?: (number);
  'cpuUsedMillis'?: (number);
  'memoryTotalMb'?: (number);
  /**
   * Memory of the whole server in use (MemTotal - MemAvailable).
   */
  'memoryUsedMb'?: (number);
  'diskTotalMb'?: (number);
  'diskFreeMb'?: (number);
  /**
   * Managed containers measured in the last sample.
   */
  'containers'?: (number);
  /**
   * How long the last collection cycle took, in milliseconds.
   */
  'lastCycleMs'?: (number | string);
}

export interface NodeUsageResponse__Output {
  /**
   * Cores of the server in millis, and what its containers used on average over the last sampling interval.
   */
  'cpuTotalMillis': (number);
  'cpuUsedMillis': (number);
  'memoryTotalMb': (number);
  /**
   * Memory of the whole server in use (MemTotal - MemAvailable).
   */
  'memoryUsedMb': (number);
  'diskTotalMb': (number);
  'diskFreeMb': (number);
  /**
   * Managed containers measured in the last sample.
   */
  'containers': (number);
  /**
   * How long the last collection cycle took, in milliseconds.
   */
  'lastCycleMs': (number);
}
