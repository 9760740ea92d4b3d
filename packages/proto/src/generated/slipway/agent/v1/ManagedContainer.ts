// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface ManagedContainer {
  'id'?: (string);
  'name'?: (string);
  'image'?: (string);
  /**
   * created, running, exited, …
   */
  'state'?: (string);
  'labels'?: ({[key: string]: string});
  'createdAtMs'?: (number | string);
}

export interface ManagedContainer__Output {
  'id': (string);
  'name': (string);
  'image': (string);
  /**
   * created, running, exited, …
   */
  'state': (string);
  'labels': ({[key: string]: string});
  'createdAtMs': (number);
}
