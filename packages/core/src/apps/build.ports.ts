import type { AgentTarget } from '../ports/agents';

export interface BuildZipInput {
  operationId: string;
  workspaceId: string;
  appId: string;
  deploymentId: string;
  /** The app's build settings at the time of the build; "" means detected. */
  buildCommand: string;
  startCommand: string;
  rootDirectory: string;
  /** The app's variables, opened (secret ones decrypted), for its build command; the agent keeps them out of images and logs. */
  variables: BuildVariable[];
}

export interface BuildVariable {
  key: string;
  value: string;
  secret: boolean;
}

/** A GitHub commit to build (issue 16): the agent downloads its tarball with `token`, which it never stores or logs. */
export interface BuildGithubInput extends BuildZipInput {
  apiUrl: string;
  repoFullName: string;
  commitSha: string;
  /** A short-lived installation token scoped to the repository. */
  token: string;
}

export interface BuildZipResult {
  imageId: string;
  /** `slipway-app/<appId>:<deploymentId>`, the tag the rollout starts. */
  imageRef: string;
  language: string;
}

/**
 * Uploads built on a server (the `slipway.agent.v1.Builds` gRPC service). Failures arrive as AppErrors:
 * `build_failed` with the reason for the user, `payload_too_large` when the server's own limit is passed,
 * `node_unavailable` when the agent cannot be reached.
 */
export interface BuildsGateway {
  /** Streams the .zip to `<agent data dir>/uploads/<deploymentId>.zip`; when `body` throws, nothing stays on disk. */
  uploadZip(target: AgentTarget, deploymentId: string, body: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }>;
  /** Builds the uploaded .zip; each log line goes to `onLine`. Aborting `signal` stops the build. */
  buildZip(target: AgentTarget, input: BuildZipInput, onLine: (line: string) => void, signal?: AbortSignal): Promise<BuildZipResult>;
  discardUpload(target: AgentTarget, deploymentId: string): Promise<void>;
  /** Downloads a GitHub commit and builds it like an upload (issue 16); each log line goes to `onLine`. */
  buildGithub(target: AgentTarget, input: BuildGithubInput, onLine: (line: string) => void, signal?: AbortSignal): Promise<BuildZipResult>;
}
