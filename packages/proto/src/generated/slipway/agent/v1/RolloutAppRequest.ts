// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface RolloutAppRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
  'imageRef'?: (string);
  'cpuMillis'?: (number);
  'memoryMb'?: (number);
  /**
   * 0: a worker, nothing published and no route.
   */
  'port'?: (number);
  'env'?: ({[key: string]: string});
  /**
   * GET health_path must answer 2xx/3xx when set, else GET / any HTTP response; asked from inside the container.
   */
  'healthPath'?: (string);
  /**
   * The host to route to the new container; empty: no route (workers, or a stopped app).
   */
  'routeHost'?: (string);
  'readyTimeoutMs'?: (number);
  'stopGraceMs'?: (number);
  /**
   * Deployment tags whose images are no longer kept (older than the last five deployments).
   */
  'pruneImageRefs'?: (string)[];
  /**
   * Size of the project folder (MB): made at this size, grown to it when smaller (never shrunk). 0: 512.
   */
  'diskMb'?: (number);
  /**
   * The route moves to the new container as soon as it answers, the previous container kept running behind it as a
   * fallback until the settle window has passed; a new container that dies inside the window is taken out of the
   * route again (ListManagedContainers then reports it with settle_failure). false (an older control plane): the new
   * container must pass the whole window before the route moves.
   */
  'warmPrevious'?: (boolean);
  /**
   * A rollback: no settle window when this image already passed one on this server.
   */
  'maySkipSettle'?: (boolean);
}

export interface RolloutAppRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
  'imageRef': (string);
  'cpuMillis': (number);
  'memoryMb': (number);
  /**
   * 0: a worker, nothing published and no route.
   */
  'port': (number);
  'env': ({[key: string]: string});
  /**
   * GET health_path must answer 2xx/3xx when set, else GET / any HTTP response; asked from inside the container.
   */
  'healthPath': (string);
  /**
   * The host to route to the new container; empty: no route (workers, or a stopped app).
   */
  'routeHost': (string);
  'readyTimeoutMs': (number);
  'stopGraceMs': (number);
  /**
   * Deployment tags whose images are no longer kept (older than the last five deployments).
   */
  'pruneImageRefs': (string)[];
  /**
   * Size of the project folder (MB): made at this size, grown to it when smaller (never shrunk). 0: 512.
   */
  'diskMb': (number);
  /**
   * The route moves to the new container as soon as it answers, the previous container kept running behind it as a
   * fallback until the settle window has passed; a new container that dies inside the window is taken out of the
   * route again (ListManagedContainers then reports it with settle_failure). false (an older control plane): the new
   * container must pass the whole window before the route moves.
   */
  'warmPrevious': (boolean);
  /**
   * A rollback: no settle window when this image already passed one on this server.
   */
  'maySkipSettle': (boolean);
}
