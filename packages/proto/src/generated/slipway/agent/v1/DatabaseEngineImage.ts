// Original file: ../../proto/slipway/agent/v1/databases.proto


export interface DatabaseEngineImage {
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine'?: (string);
  'image'?: (string);
  'available'?: (boolean);
  /**
   * How to make the image available when it is not (`docker load -i <file>` or `docker pull <image>`).
   */
  'hint'?: (string);
  /**
   * The engine's port on the private network.
   */
  'port'?: (number);
}

export interface DatabaseEngineImage__Output {
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine': (string);
  'image': (string);
  'available': (boolean);
  /**
   * How to make the image available when it is not (`docker load -i <file>` or `docker pull <image>`).
   */
  'hint': (string);
  /**
   * The engine's port on the private network.
   */
  'port': (number);
}
