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
  /**
   * An app container that died (or stopped answering) inside its settle window: why, as a sentence; empty otherwise.
   */
  'settleFailure'?: (string);
  /**
   * With settle_failure: the deployment whose container took the route back (it was kept warm behind the new one).
   */
  'fallbackDeploymentId'?: (string);
  /**
   * The container is inside its settle window now (the agent judges it: a comparison leaves it alone).
   */
  'settling'?: (boolean);
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
  /**
   * An app container that died (or stopped answering) inside its settle window: why, as a sentence; empty otherwise.
   */
  'settleFailure': (string);
  /**
   * With settle_failure: the deployment whose container took the route back (it was kept warm behind the new one).
   */
  'fallbackDeploymentId': (string);
  /**
   * The container is inside its settle window now (the agent judges it: a comparison leaves it alone).
   */
  'settling': (boolean);
}
