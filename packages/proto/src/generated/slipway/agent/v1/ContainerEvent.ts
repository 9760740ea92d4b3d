// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface ContainerEvent {
  'containerId'?: (string);
  /**
   * die, oom, start, destroy
   */
  'action'?: (string);
  'exitCode'?: (number);
  'labels'?: ({[key: string]: string});
  'atMs'?: (number | string);
}

export interface ContainerEvent__Output {
  'containerId': (string);
  /**
   * die, oom, start, destroy
   */
  'action': (string);
  'exitCode': (number);
  'labels': ({[key: string]: string});
  'atMs': (number);
}
