// Original file: ../../proto/slipway/agent/v1/build.proto

import type { BuildVariable as _slipway_agent_v1_BuildVariable, BuildVariable__Output as _slipway_agent_v1_BuildVariable__Output } from '../../../slipway/agent/v1/BuildVariable';

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
  /**
   * The app's variables for its build command (issue 30): with BuildKit a build secret (never in a layer, the log or
   * the journal); the classic builder does not use them.
   */
  'variables'?: (_slipway_agent_v1_BuildVariable)[];
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
  /**
   * The app's variables for its build command (issue 30): with BuildKit a build secret (never in a layer, the log or
   * the journal); the classic builder does not use them.
   */
  'variables': (_slipway_agent_v1_BuildVariable__Output)[];
}
