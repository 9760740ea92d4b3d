// Original file: ../../proto/slipway/agent/v1/build.proto


export interface BuildResult {
  'imageId'?: (string);
  'imageRef'?: (string);
  /**
   * dockerfile, node, python or static.
   */
  'language'?: (string);
}

export interface BuildResult__Output {
  'imageId': (string);
  'imageRef': (string);
  /**
   * dockerfile, node, python or static.
   */
  'language': (string);
}
