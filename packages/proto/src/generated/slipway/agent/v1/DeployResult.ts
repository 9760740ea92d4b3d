// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface DeployResult {
  /**
   * The image id (sha256:…) and the tag made for this deployment.
   */
  'imageId'?: (string);
  'imageRef'?: (string);
  'containerId'?: (string);
  /**
   * The port published on 127.0.0.1 (0 for workers without a port).
   */
  'hostPort'?: (number);
  /**
   * RolloutApp with warm_previous: the settle window still running when the new container took the route (the previous
   * container stays behind it as a fallback until then); 0: none (the window passed before, or was skipped).
   */
  'settleMs'?: (number);
}

export interface DeployResult__Output {
  /**
   * The image id (sha256:…) and the tag made for this deployment.
   */
  'imageId': (string);
  'imageRef': (string);
  'containerId': (string);
  /**
   * The port published on 127.0.0.1 (0 for workers without a port).
   */
  'hostPort': (number);
  /**
   * RolloutApp with warm_previous: the settle window still running when the new container took the route (the previous
   * container stays behind it as a fallback until then); 0: none (the window passed before, or was skipped).
   */
  'settleMs': (number);
}
