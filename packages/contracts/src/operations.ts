// Every endpoint of the API, keyed by operationId. document.ts renders this table as the OpenAPI 3.1
// document served at GET /v1/openapi.json; the API mounts its routes from it (apps/api/src/http/operations.ts),
// so the path, method, credentials, permission and body schema of a route are written once, here.
import * as F from './files.schemas';
import * as S from './schemas';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * - `public`: no credential.
 * - `session`: the `svc_session` cookie only (a bearer token answers 401 `session_required`).
 * - `any`: the session cookie or `Authorization: Bearer <token>`.
 */
export type AuthMode = 'public' | 'session' | 'any';

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: AuthMode;
  /** The workspace permission (packages/core permissions table) the authorization layer checks. */
  readonly permission?: string;
  readonly body?: object;
  /** Query parameters as one object schema (properties = parameters); validated with coercion, defaults filled in. */
  readonly query?: object;
  /**
   * A body that is not JSON (a file): only its Content-Type is checked (415 otherwise); the handler streams it from
   * `req` itself, with its own size limit.
   */
  readonly rawBody?: { readonly contentType: string; readonly description: string };
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly schema: object;
    readonly contentType?: string;
    readonly setsCookie?: boolean;
    /** The handler writes the response itself (a download streamed with its headers); it returns nothing. */
    readonly streamed?: boolean;
  };
  /** Errors particular to the operation; the generic ones (credentials, body, CSRF, 500) are added by document.ts. */
  readonly errors?: { readonly [status: number]: readonly string[] };
  /** Non-error responses other than the success one (e.g. /readyz's 503). */
  readonly otherResponses?: { readonly [status: number]: { readonly description: string; readonly schema: object } };
  /** Served by a router of its own rather than the operation table (health checks, the reference page). */
  readonly custom?: boolean;
}

const WORKSPACE_WRITE_DENIALS = ['forbidden', 'workspace_suspended'] as const;

export const OPERATIONS = {
  // ------------------------------------------------------------------------------------------- meta
  getHealth: {
    method: 'get',
    path: '/healthz',
    tag: 'meta',
    summary: 'The process is up',
    auth: 'public',
    custom: true,
    success: { status: 200, description: 'alive', schema: S.Health },
  },
  getReadiness: {
    method: 'get',
    path: '/readyz',
    tag: 'meta',
    summary: 'Every dependency answers (database, Redis, agents)',
    auth: 'public',
    custom: true,
    success: { status: 200, description: 'ready', schema: S.Readiness },
    otherResponses: { 503: { description: 'a dependency does not answer; `checks` names it', schema: S.Readiness } },
  },
  getReference: {
    method: 'get',
    path: '/docs',
    tag: 'meta',
    summary: 'This reference as a readable page (served from local files)',
    auth: 'public',
    custom: true,
    success: { status: 200, description: 'an HTML page', schema: { type: 'string' }, contentType: 'text/html' },
  },
  getOpenApiDocument: {
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'meta',
    summary: 'This document',
    auth: 'public',
    success: { status: 200, description: 'the OpenAPI 3.1 document', schema: S.OpenApiDocument },
  },

  // ------------------------------------------------------------------------------------------- auth
  signup: {
    method: 'post',
    path: '/v1/auth/signup',
    tag: 'auth',
    summary: 'Create an account and sign in',
    description: 'Sets the `svc_session` cookie (HttpOnly, SameSite=Lax, Path=/, Secure over https, 30 days).',
    auth: 'public',
    body: S.SignupRequest,
    success: { status: 201, description: 'the new user; the session cookie is set', schema: S.UserEnvelope, setsCookie: true },
    errors: { 409: ['email_taken'] },
  },
  login: {
    method: 'post',
    path: '/v1/auth/login',
    tag: 'auth',
    summary: 'Sign in with email and password',
    description:
      'Failed attempts are counted per email and per client IP; past the limit the answer is 429 `too_many_attempts` ' +
      'with `Retry-After` (seconds), even for the right password, until the window ends.',
    auth: 'public',
    body: S.LoginRequest,
    success: { status: 200, description: 'the user; the session cookie is set', schema: S.UserEnvelope, setsCookie: true },
    errors: { 401: ['invalid_credentials'], 429: ['too_many_attempts'] },
  },
  logout: {
    method: 'post',
    path: '/v1/auth/logout',
    tag: 'auth',
    summary: 'Sign out: the session is revoked server-side and the cookie cleared',
    auth: 'session',
    success: { status: 200, description: 'signed out', schema: S.Ok, setsCookie: true },
  },
  getMe: {
    method: 'get',
    path: '/v1/auth/me',
    tag: 'auth',
    summary: 'The signed-in user (with a token: its creator)',
    auth: 'any',
    success: { status: 200, description: 'the user', schema: S.UserEnvelope },
  },

  // ------------------------------------------------------------------------------------- workspaces
  listWorkspaces: {
    method: 'get',
    path: '/v1/workspaces',
    tag: 'workspaces',
    summary: "The caller's workspaces (with a token: its one workspace)",
    auth: 'any',
    success: { status: 200, description: 'workspaces, oldest first', schema: S.WorkspaceList },
  },
  createWorkspace: {
    method: 'post',
    path: '/v1/workspaces',
    tag: 'workspaces',
    summary: 'Create a workspace; the caller becomes its owner',
    description:
      'The slug derives from the name (suffixed when taken). The workspace starts on the trial plan (14 days, then 7 days ' +
      'of grace) and is placed on the online server with the most free capacity.',
    auth: 'session',
    body: S.CreateWorkspaceRequest,
    success: { status: 201, description: 'the workspace', schema: S.Workspace },
    errors: { 503: ['node_unavailable'] },
  },
  getWorkspace: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}',
    tag: 'workspaces',
    summary: 'A workspace',
    auth: 'any',
    permission: 'workspace.read',
    success: { status: 200, description: 'the workspace', schema: S.Workspace },
  },
  updateWorkspace: {
    method: 'patch',
    path: '/v1/workspaces/{workspaceId}',
    tag: 'workspaces',
    summary: 'Rename a workspace or change its slug (owner, admin)',
    auth: 'any',
    permission: 'workspace.update',
    body: S.UpdateWorkspaceRequest,
    success: { status: 200, description: 'the workspace', schema: S.Workspace },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
  },
  deleteWorkspace: {
    method: 'delete',
    path: '/v1/workspaces/{workspaceId}',
    tag: 'workspaces',
    summary: 'Delete a workspace permanently (owners only)',
    description:
      'The workspace disappears from the API at once; its apps, databases, backups, domains, tokens and members are torn ' +
      'down by a background job.',
    auth: 'any',
    permission: 'workspace.delete',
    success: { status: 200, description: 'deleted', schema: S.Ok },
    errors: { 403: ['owner_required'] },
  },
  getWorkspacePlan: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/plan',
    tag: 'plans',
    summary: "The workspace's plan, effective limits, reserved usage and minimums",
    auth: 'any',
    permission: 'plan.read',
    success: { status: 200, description: 'plan and usage', schema: S.WorkspacePlan },
  },
  listPlans: {
    method: 'get',
    path: '/v1/plans',
    tag: 'plans',
    summary: 'The public catalog: the current version of each paid plan, cheapest first',
    auth: 'public',
    success: { status: 200, description: 'paid plans', schema: S.PlanCatalog },
  },

  // ---------------------------------------------------------------------------------------- members
  listMembers: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/members',
    tag: 'members',
    summary: 'Members and their roles',
    auth: 'any',
    permission: 'members.read',
    success: { status: 200, description: 'members, oldest first', schema: S.MemberList },
  },
  addMember: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/members',
    tag: 'members',
    summary: 'Add an existing user by email (owner, admin; only owners add owners)',
    auth: 'any',
    permission: 'members.write',
    body: S.AddMemberRequest,
    success: { status: 201, description: 'the member', schema: S.Member },
    errors: { 402: ['quota_exceeded'], 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 404: ['not_found'], 409: ['already_member'] },
  },
  updateMember: {
    method: 'patch',
    path: '/v1/workspaces/{workspaceId}/members/{userId}',
    tag: 'members',
    summary: "Change a member's role (owner, admin; only owners change owners)",
    auth: 'any',
    permission: 'members.write',
    body: S.UpdateMemberRequest,
    success: { status: 200, description: 'the member', schema: S.Member },
    errors: { 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 409: ['last_owner'] },
  },
  removeMember: {
    method: 'delete',
    path: '/v1/workspaces/{workspaceId}/members/{userId}',
    tag: 'members',
    summary: "Remove a member (owner, admin; only owners remove owners); the member's tokens are revoked",
    auth: 'any',
    permission: 'members.write',
    success: { status: 200, description: 'removed', schema: S.Ok },
    errors: { 403: [...WORKSPACE_WRITE_DENIALS, 'owner_required'], 409: ['last_owner'] },
  },

  // ----------------------------------------------------------------------------------------- tokens
  listTokens: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/tokens',
    tag: 'tokens',
    summary: 'API tokens of the workspace, without values (owner, admin: all; others: their own)',
    auth: 'any',
    permission: 'tokens.read',
    success: { status: 200, description: 'tokens not revoked, oldest first', schema: S.ApiTokenList },
  },
  createToken: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/tokens',
    tag: 'tokens',
    summary: "Create an API token for this workspace, acting with the creator's role; the value is shown this once",
    description: 'Needs the session cookie: a token cannot mint tokens.',
    auth: 'session',
    permission: 'tokens.create',
    body: S.CreateTokenRequest,
    success: { status: 201, description: 'the token with its value', schema: S.CreatedApiToken },
    errors: { 403: WORKSPACE_WRITE_DENIALS },
  },
  revokeToken: {
    method: 'delete',
    path: '/v1/workspaces/{workspaceId}/tokens/{tokenId}',
    tag: 'tokens',
    summary: 'Revoke a token; it answers 401 from the next request on (developers: their own tokens)',
    auth: 'any',
    permission: 'tokens.revoke',
    success: { status: 200, description: 'revoked', schema: S.Ok },
    errors: { 403: ['forbidden'] },
  },

  // ------------------------------------------------------------------------------------------- apps
  listApps: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps',
    tag: 'apps',
    summary: 'Apps of the workspace, oldest first',
    auth: 'any',
    permission: 'apps.read',
    success: { status: 200, description: 'apps', schema: S.AppList },
  },
  createApp: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps',
    tag: 'apps',
    summary: 'Create an app; reserves its vCPU and memory; web apps get a subdomain and URL',
    description:
      'Nothing runs until the first deployment. `image` is required for source `image`. `cpuMillis` defaults to the plan ' +
      'minimum for apps; below a minimum is 400 `validation_failed`. Web apps listen on `port` (default 8080).',
    auth: 'any',
    permission: 'apps.write',
    body: S.CreateAppRequest,
    success: { status: 201, description: 'the app', schema: S.App },
    errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
  },
  getApp: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}',
    tag: 'apps',
    summary: 'An app',
    auth: 'any',
    permission: 'apps.read',
    success: { status: 200, description: 'the app', schema: S.App },
  },
  updateApp: {
    method: 'patch',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}',
    tag: 'apps',
    summary: 'Rename, change image or port, or resize an app',
    description: 'A new size is reserved at once (402 when it does not fit) and applied to the container at the next deployment.',
    auth: 'any',
    permission: 'apps.write',
    body: S.UpdateAppRequest,
    success: { status: 200, description: 'the app', schema: S.App },
    errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
  },
  deleteApp: {
    method: 'delete',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}',
    tag: 'apps',
    summary: 'Delete an app: quota released at once; containers, images and the project folder removed by a job',
    auth: 'any',
    permission: 'apps.write',
    success: { status: 200, description: 'deleted', schema: S.Ok },
    errors: { 403: WORKSPACE_WRITE_DENIALS },
  },
  getAppEnv: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/env',
    tag: 'apps',
    summary: 'Environment variables, by key; secret values are null',
    auth: 'any',
    permission: 'env.read',
    success: { status: 200, description: 'variables', schema: S.EnvVariableList },
  },
  putAppEnv: {
    method: 'put',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/env',
    tag: 'apps',
    summary: 'Replace the whole set of environment variables',
    description:
      'Keys missing from the request are removed. A secret sent with `""` keeps its current value. Changes apply from ' +
      'the next deployment or restart. Duplicate keys are 400 `validation_failed`.',
    auth: 'any',
    permission: 'env.write',
    body: S.PutEnvRequest,
    success: { status: 200, description: 'variables', schema: S.EnvVariableList },
    errors: { 403: WORKSPACE_WRITE_DENIALS },
  },
  startApp: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/start',
    tag: 'apps',
    summary: "Bring the current deployment's container up again and put its route back",
    auth: 'any',
    permission: 'deployments.write',
    success: { status: 200, description: 'the app (desiredState running; status follows once the server did it)', schema: S.App },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['app_not_deployed'], 503: ['node_unavailable'] },
  },
  stopApp: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/stop',
    tag: 'apps',
    summary: 'Take the route offline and stop the container; the reservation and the project folder remain',
    auth: 'any',
    permission: 'deployments.write',
    success: { status: 200, description: 'the app (desiredState stopped)', schema: S.App },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 503: ['node_unavailable'] },
  },
  restartApp: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/restart',
    tag: 'apps',
    summary: "Restart the current deployment's container",
    description: 'New variables and a new size apply only from the next deployment.',
    auth: 'any',
    permission: 'deployments.write',
    success: { status: 200, description: 'the app', schema: S.App },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['app_not_deployed'], 503: ['node_unavailable'] },
  },
  getAppLogs: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/logs',
    tag: 'apps',
    summary: "Runtime output of the current deployment's container, in chunks (phase runtime)",
    description: 'Lines are numbered from the container start; `done` is true once every line was read (more may come later).',
    auth: 'any',
    permission: 'apps.read',
    query: S.LogQuery,
    success: { status: 200, description: 'a chunk of log lines', schema: S.LogChunk },
    errors: { 400: ['validation_failed'], 503: ['node_unavailable'] },
  },

  // ------------------------------------------------------------------------------------ deployments
  listDeployments: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments',
    tag: 'deployments',
    summary: 'Deployment history, newest first, a page at a time',
    auth: 'any',
    permission: 'apps.read',
    query: S.DeploymentListQuery,
    success: { status: 200, description: 'a page of deployments', schema: S.DeploymentPage },
    errors: { 400: ['validation_failed', 'invalid_cursor'] },
  },
  createDeployment: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments',
    tag: 'deployments',
    summary: "Deploy: image apps pull `image` (or the app's own) and roll it out with zero downtime",
    description:
      'The image is pulled; when no registry is reachable a locally present image is used. The new container must ' +
      'accept connections on its port (or answer the health path) before the route switches; otherwise the ' +
      'deployment fails with the reason and the previous one stays live.',
    auth: 'any',
    permission: 'deployments.write',
    body: S.CreateDeploymentRequest,
    success: { status: 201, description: 'the queued deployment', schema: S.Deployment },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['no_image_built'] },
  },
  getDeployment: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}',
    tag: 'deployments',
    summary: 'A deployment',
    auth: 'any',
    permission: 'apps.read',
    success: { status: 200, description: 'the deployment', schema: S.Deployment },
  },
  getDeploymentLogs: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/logs',
    tag: 'deployments',
    summary: 'Build and deploy log lines after `after`; call again with nextAfter until done',
    auth: 'any',
    permission: 'apps.read',
    query: S.LogQuery,
    success: { status: 200, description: 'a chunk of log lines', schema: S.LogChunk },
    errors: { 400: ['validation_failed'] },
  },
  rollbackDeployment: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/rollback',
    tag: 'deployments',
    summary: 'A new deployment from the image of this earlier one, without a build',
    auth: 'any',
    permission: 'deployments.write',
    success: { status: 201, description: 'the queued deployment', schema: S.Deployment },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['image_unavailable'] },
  },
  uploadDeployment: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/upload',
    tag: 'deployments',
    summary: 'Deploy a .zip of the code (upload apps): built on the server, which detects the language',
    description:
      'The body is the .zip itself (`Content-Type: application/zip`), streamed to the server as it arrives; past the ' +
      'limit (200 MB by default) the answer is 413 at once and nothing is kept. The deployment is queued; its build ' +
      'extracts the archive safely (no absolute paths, `..`, links or devices; entry-count, size and compression-ratio ' +
      'limits) and detects, in order: a Dockerfile at the root; Node.js (package.json; npm, pnpm or yarn by lockfile; ' +
      'the build script; the start script or main); Python (requirements.txt or pyproject.toml; a Procfile web: line, ' +
      'a gunicorn/uvicorn app, main.py or app.py); a static site (index.html). A Procfile web: line sets the start ' +
      'command. Each step is in the build log; a build that cannot go on fails the deployment with `failureReason`. ' +
      'Dependencies are a cached layer, reused while the lockfile is unchanged. The new image\'s /app is written into ' +
      'the project folder when it rolls out (files of the image overwrite, others stay).',
    auth: 'any',
    permission: 'deployments.write',
    rawBody: { contentType: 'application/zip', description: 'the .zip of the code' },
    success: { status: 201, description: 'the queued deployment', schema: S.Deployment },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['source_mismatch'], 503: ['node_unavailable'] },
  },
  cancelDeployment: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/cancel',
    tag: 'deployments',
    summary: 'Cancel a deployment that is queued or building',
    auth: 'any',
    permission: 'deployments.write',
    success: { status: 200, description: 'the cancelled deployment', schema: S.Deployment },
    errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['deployment_not_cancellable'] },
  },

  // ------------------------------------------------------------------------------------------- files
  listFiles: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/files',
    tag: 'files',
    summary: "A folder of the app's project folder, as it is now on the server (at most 1,000 entries, sorted by name)",
    description:
      'Symlinks are listed as such. A path through a symlink that leads out of the project folder is 400 `invalid_path`. ' +
      'An app that has no files yet lists as empty.',
    auth: 'any',
    permission: 'files.list',
    query: F.ListFilesQuery,
    success: { status: 200, description: 'the folder listing', schema: F.FileListing },
    errors: { 400: ['invalid_path', 'not_a_folder'], 503: ['node_unavailable'] },
  },
  deleteFile: {
    method: 'delete',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/files',
    tag: 'files',
    summary: 'Delete a file, a symlink (not its target) or a folder (one with content only with recursive=true)',
    auth: 'any',
    permission: 'files.write',
    query: F.DeleteFileQuery,
    success: { status: 200, description: 'deleted', schema: S.Ok },
    errors: { 400: ['invalid_path', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 409: ['folder_not_empty'], 503: ['node_unavailable'] },
  },
  downloadFile: {
    method: 'get',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/content',
    tag: 'files',
    summary: 'Download a file of the project folder (streamed, with Content-Length and Content-Disposition)',
    description: 'Viewers may list but not download.',
    auth: 'any',
    permission: 'files.download',
    query: F.FilePathQuery,
    success: { status: 200, description: 'the bytes of the file', schema: F.FileContent, contentType: 'application/octet-stream', streamed: true },
    errors: { 400: ['invalid_path', 'not_a_file', 'not_a_folder'], 403: ['forbidden'], 503: ['node_unavailable'] },
  },
  uploadFile: {
    method: 'put',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/content',
    tag: 'files',
    summary: 'Write a file of the project folder from the raw body (at most 100 MB); missing parent folders are created',
    description:
      'The body is streamed into a temporary file beside the target, which replaces the previous file only once the ' +
      'last byte arrived: an interrupted upload leaves the old file. Past the limit the answer is 413 at once. The ' +
      'change takes effect at once on disk; the app runs new code after a restart, and later deployments keep the file.',
    auth: 'any',
    permission: 'files.write',
    query: F.FilePathQuery,
    rawBody: { contentType: 'application/octet-stream', description: 'the content of the file' },
    success: { status: 200, description: 'written', schema: S.Ok },
    errors: { 400: ['invalid_path', 'not_a_file', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 503: ['node_unavailable'] },
  },
  renameFile: {
    method: 'post',
    path: '/v1/workspaces/{workspaceId}/apps/{appId}/files/rename',
    tag: 'files',
    summary: 'Rename or move a file or folder inside the project folder; the destination must not exist',
    auth: 'any',
    permission: 'files.write',
    body: F.RenameFileRequest,
    success: { status: 200, description: 'moved', schema: S.Ok },
    errors: { 400: ['invalid_path', 'not_a_folder'], 403: WORKSPACE_WRITE_DENIALS, 409: ['destination_exists'], 503: ['node_unavailable'] },
  },

  // ------------------------------------------------------------------------------------------- nodes
  enrollAgent: {
    method: 'post',
    path: '/v1/agent/enroll',
    tag: 'nodes',
    summary: 'Enroll a server: sign its agent CSR with a one-time enrollment token',
    description:
      'Called by `slipway-agent join`. The token is the only credential: unknown, used or expired tokens answer 401. ' +
      'The node is recorded offline and goes online once it answers a health check over mutual TLS.',
    auth: 'public',
    body: S.EnrollAgentRequest,
    success: { status: 201, description: 'the signed certificate and the CA certificate', schema: S.EnrolledAgent },
    errors: { 401: ['unauthorized'] },
  },
} as const satisfies Record<string, OperationSpec>;

export type OperationId = keyof typeof OPERATIONS;
export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];
