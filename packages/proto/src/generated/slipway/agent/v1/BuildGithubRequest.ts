// Original file: ../../proto/slipway/agent/v1/build.proto

import type { BuildVariable as _slipway_agent_v1_BuildVariable, BuildVariable__Output as _slipway_agent_v1_BuildVariable__Output } from '../../../slipway/agent/v1/BuildVariable';

export interface BuildGithubRequest {
  'operationId'?: (string);
  'workspaceId'?: (string);
  'appId'?: (string);
  'deploymentId'?: (string);
  /**
   * As in BuildZipRequest: empty means detected; root_directory is the app's rootDir inside the repository.
   */
  'buildCommand'?: (string);
  'startCommand'?: (string);
  'rootDirectory'?: (string);
  /**
   * GitHub's REST API (https://api.github.com, or https://<host>/api/v3).
   */
  'apiUrl'?: (string);
  /**
   * owner/name and the full 40-hex sha of the commit to build.
   */
  'repoFullName'?: (string);
  'commitSha'?: (string);
  /**
   * An installation token scoped to the repository (contents: read), valid about an hour. Secret: held in memory
   * for the download only.
   */
  'token'?: (string);
  /**
   * As in BuildZipRequest.
   */
  'variables'?: (_slipway_agent_v1_BuildVariable)[];
}

export interface BuildGithubRequest__Output {
  'operationId': (string);
  'workspaceId': (string);
  'appId': (string);
  'deploymentId': (string);
  /**
   * As in BuildZipRequest: empty means detected; root_directory is the app's rootDir inside the repository.
   */
  'buildCommand': (string);
  'startCommand': (string);
  'rootDirectory': (string);
  /**
   * GitHub's REST API (https://api.github.com, or https://<host>/api/v3).
   */
  'apiUrl': (string);
  /**
   * owner/name and the full 40-hex sha of the commit to build.
   */
  'repoFullName': (string);
  'commitSha': (string);
  /**
   * An installation token scoped to the repository (contents: read), valid about an hour. Secret: held in memory
   * for the download only.
   */
  'token': (string);
  /**
   * As in BuildZipRequest.
   */
  'variables': (_slipway_agent_v1_BuildVariable__Output)[];
}
