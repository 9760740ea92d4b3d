// Original file: ../../proto/slipway/agent/v1/build.proto


export interface BuildZipRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
  /**
   * The app's build settings; empty: detected. Commands run through `sh -c` inside the build (the start command in
   * the image's CMD), never on the server; the agent checks them again (one line, no control characters).
   */
  'buildCommand'?: (string);
  'startCommand'?: (string);
  /**
   * A folder of the upload to build from (relative, no `..`, inside the upload whatever it holds).
   */
  'rootDirectory'?: (string);
}

export interface BuildZipRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
  /**
   * The app's build settings; empty: detected. Commands run through `sh -c` inside the build (the start command in
   * the image's CMD), never on the server; the agent checks them again (one line, no control characters).
   */
  'buildCommand': (string);
  'startCommand': (string);
  /**
   * A folder of the upload to build from (relative, no `..`, inside the upload whatever it holds).
   */
  'rootDirectory': (string);
}
