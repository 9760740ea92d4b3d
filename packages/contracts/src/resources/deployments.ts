// Deployments of an app: builds and zero-downtime rollouts, their logs, cancel and rollback.
import { Count, NullableTimestamp, PageQuery, pageOf, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

export const ImageRef = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  pattern: '^[a-zA-Z0-9][a-zA-Z0-9._/:@+-]*$',
  description: 'a container image reference: name[:tag][@digest]',
} as const;

export const DeploymentStatus = {
  type: 'string',
  enum: ['queued', 'building', 'deploying', 'live', 'crashed', 'superseded', 'failed', 'cancelled'],
  description:
    'queued → building → deploying → live; live → superseded when another goes live (superseded → live again when the ' +
    'one after it dies inside its settle window); failed (failureReason: why, the ' +
    "app's last log lines are in the log), cancelled. crashed: it went live, then its container exited on its own " +
    'within a minute (failureReason); it is still the current deployment, restarted by Docker with backoff, until ' +
    'another goes live — unless it died inside its settle window with the previous release kept warm behind it: then ' +
    'that one is live and current again (failureReason ends "inside its settle window: deployment #N serves again")',
} as const;

export const Deployment = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'appId', 'number', 'source', 'status', 'image', 'imageDigest', 'rollbackOf', 'commit', 'failureReason',
    'imageAvailable', 'triggeredBy', 'createdAt', 'startedAt', 'finishedAt',
  ],
  properties: {
    id: Uuid,
    appId: Uuid,
    number: { type: 'integer', minimum: 1, description: 'per app, from 1' },
    source: { type: 'string', enum: ['image', 'github', 'upload', 'rollback'] },
    status: DeploymentStatus,
    image: { type: ['string', 'null'], description: 'the image reference deployed' },
    imageDigest: { type: ['string', 'null'], description: 'the id (sha256) of the image on the server, once resolved' },
    rollbackOf: { type: ['string', 'null'], format: 'uuid', description: 'id of the deployment that a rollback repeats' },
    commit: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { sha: { type: 'string' }, message: { type: 'string' }, author: { type: 'string' }, branch: { type: 'string' }, url: { type: 'string' } },
    },
    failureReason: { type: ['string', 'null'] },
    imageAvailable: { type: 'boolean', description: 'whether the image is still on the server; a rollback needs it to be true' },
    triggeredBy: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: Uuid, name: { type: 'string' } },
    },
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    finishedAt: NullableTimestamp,
  },
} as const;

export const DeploymentPage = pageOf(Deployment, 'pass as `cursor` for the next (older) page; null on the last page');
export const DeploymentListQuery = PageQuery;

export const CreateDeploymentRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    image: { ...ImageRef, description: "image apps: the image to deploy (default: the app's image)" },
    commitSha: { type: 'string', pattern: '^[0-9a-f]{7,40}$', description: 'GitHub apps: the commit to deploy (default: the head of the branch)' },
  },
} as const;

/** Build, deploy and runtime log lines, read in chunks (deployment logs here, an app's runtime logs in apps.ts). */
export const LogChunk = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'nextAfter', 'done', 'truncated'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['seq', 'phase', 'text', 'at'],
        properties: { seq: { type: 'integer', minimum: 1 }, phase: { type: 'string', enum: ['build', 'deploy', 'runtime'] }, text: { type: 'string' }, at: Timestamp },
      },
    },
    nextAfter: { ...Count, description: 'pass as `after` in the next call' },
    done: { type: 'boolean', description: 'true when there is no more to read (the deployment is finished and every line was read)' },
    truncated: { type: 'boolean', description: 'true when lines were dropped (longer than 16 KiB, or runtime logs beyond what the server keeps)' },
  },
} as const;

export const LogQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'integer', minimum: 0, maximum: 2147483647, default: 0, description: 'the last seq already read (nextAfter); lines are numbered in 32 bits' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
  },
} as const;

/** Deployment logs can be followed: `wait` holds the answer until a line comes (long polling, issue 28). */
export const DeploymentLogQuery = {
  ...LogQuery,
  properties: {
    ...LogQuery.properties,
    limit: { type: 'integer', minimum: 1, maximum: 5000, default: 500 },
    wait: {
      type: 'integer',
      minimum: 0,
      maximum: 25,
      description:
        'follow: when no line is after `after` and the deployment is not finished, wait up to this many seconds for ' +
        'one before answering (an empty chunk when none came); absent or 0 answers at once',
    },
  },
} as const;

export const DEPLOYMENTS = {
  tag: { name: 'deployments', description: 'builds and zero-downtime rollouts of an app, their logs, cancel and rollback' },
  schemas: { DeploymentStatus, Deployment, DeploymentPage, CreateDeploymentRequest, LogChunk },
  operations: {
    listDeployments: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments',
      tag: 'deployments',
      summary: 'Deployment history, newest first, a page at a time',
      auth: 'any',
      permission: 'apps.read',
      query: DeploymentListQuery,
      success: { status: 200, description: 'a page of deployments', schema: DeploymentPage },
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
        'deployment fails with the reason and the previous one stays live. GitHub apps: `commitSha` (reachable in the ' +
        'repository, 404 `github_commit_not_found` otherwise) or the head of the branch is downloaded by the server with ' +
        'a short-lived installation token and built like an upload (`rootDir`); `commit` is filled. An app whose access ' +
        'is gone answers 409 `github_access_lost`.',
      auth: 'any',
      permission: 'deployments.write',
      body: CreateDeploymentRequest,
      success: { status: 201, description: 'the queued deployment', schema: Deployment },
      errors: {
        403: WORKSPACE_WRITE_DENIALS,
        404: ['github_commit_not_found', 'github_branch_not_found'],
        409: ['no_image_built', 'github_access_lost'],
        503: ['server_disk_low', 'github_not_configured', 'github_unavailable'],
      },
    },
    getDeployment: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}',
      tag: 'deployments',
      summary: 'A deployment',
      auth: 'any',
      permission: 'apps.read',
      success: { status: 200, description: 'the deployment', schema: Deployment },
    },
    getDeploymentLogs: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/logs',
      tag: 'deployments',
      summary: 'Build and deploy log lines after `after`; call again with nextAfter until done',
      description: 'To follow a running deployment, call again with `after=nextAfter&wait=20`: each answer comes as soon as there are new lines.',
      auth: 'any',
      permission: 'apps.read',
      query: DeploymentLogQuery,
      success: { status: 200, description: 'a chunk of log lines', schema: LogChunk },
      errors: { 400: ['validation_failed'] },
    },
    rollbackDeployment: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/rollback',
      tag: 'deployments',
      summary: 'A new deployment from the image of this earlier one, without a build',
      auth: 'any',
      permission: 'deployments.write',
      success: { status: 201, description: 'the queued deployment', schema: Deployment },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['image_unavailable'], 503: ['server_disk_low'] },
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
      success: { status: 201, description: 'the queued deployment', schema: Deployment },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['source_mismatch'], 503: ['node_unavailable', 'server_disk_low'] },
    },
    cancelDeployment: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/deployments/{deploymentId}/cancel',
      tag: 'deployments',
      summary: 'Cancel a deployment that is queued or building',
      auth: 'any',
      permission: 'deployments.write',
      success: { status: 200, description: 'the cancelled deployment', schema: Deployment },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['deployment_not_cancellable'] },
    },
  },
} as const satisfies Resource;
