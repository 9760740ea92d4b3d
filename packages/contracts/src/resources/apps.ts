// Apps: containers with a reservation, variables, a project folder and, for web apps, a URL; start, stop, restart
// and runtime logs.
import { Count, listOf, NullableTimestamp, Ok, ResourceEventList, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';
import { Deployment, ImageRef, LogChunk, LogQuery } from './deployments';

const AppName = { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' } as const;
const AppPort = { type: 'integer', minimum: 1, maximum: 65535 } as const;

// Build settings of apps built by Slipway (source upload or github), over detection; applied from the next
// deployment. Commands are one line (the text rule refuses control characters) run by `sh -c` inside the build
// (the build command) or the app's container (the start command), never by a shell of the server.
const BuildCommand = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 1024,
  pattern: '\\S',
  description: 'replaces the detected build step (Node.js), run by sh -c in the build container; null: detected (PATCH null: back to detection)',
} as const;
const StartCommand = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 1024,
  pattern: '\\S',
  description: "replaces the detected start command (the image's CMD, run by sh -c; $PORT expands); null: detected",
} as const;
const RootDirectory = {
  type: ['string', 'null'],
  minLength: 1,
  maxLength: 255,
  pattern: '^(?!.*(^|/)\\.\\.?(/|$))[A-Za-z0-9._@+-]+(/[A-Za-z0-9._@+-]+)*/?$',
  description: 'the folder of the upload to build from, relative (e.g. apps/web; no leading /, no . or .. segments); only it is built; null: the root',
} as const;
const BUILD_SETTINGS = { buildCommand: BuildCommand, startCommand: StartCommand, rootDirectory: RootDirectory } as const;

export const AppStatus = {
  type: 'string',
  enum: ['idle', 'deploying', 'running', 'crashed', 'stopped', 'failed'],
  description:
    'idle: never deployed. deploying: a deployment is rolling out. running: the live deployment serves. crashed: its ' +
    'container exited on its own (see statusDetail; Docker brings it back with backoff). stopped: stopped on request. ' +
    'failed: the last deployment failed and none is live.',
} as const;

export const StatusDetail = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['exitCode', 'restarts', 'message', 'tail', 'at'],
  description: 'why the container stopped on its own: exit code, restarts so far, a message and the last log lines',
  properties: { exitCode: { type: 'integer' }, restarts: Count, message: { type: 'string' }, tail: { type: 'string' }, at: Timestamp },
} as const;

const GithubSource = {
  type: 'object',
  additionalProperties: false,
  required: ['installationId', 'repoFullName', 'branch'],
  properties: {
    installationId: { type: 'integer', minimum: 1 },
    repoId: { type: 'integer', minimum: 1 },
    repoFullName: { type: 'string', pattern: '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$' },
    branch: { type: 'string', minLength: 1, maxLength: 255 },
    rootDir: { type: 'string', maxLength: 1024, description: 'the folder of the repository to build (default: its root); the rules of file paths' },
    autoDeploy: { type: 'boolean', description: 'a push to the branch deploys it (default true)' },
    watchRootOnly: { type: 'boolean', description: 'with autoDeploy: only pushes that change a file under rootDir deploy (default false)' },
  },
} as const;

// PATCH: the app's GitHub settings, merged over the current ones and checked again with GitHub.
const GithubSourceChanges = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...GithubSource.properties },
  description: 'github apps: changes to the GitHub settings, checked with GitHub as at creation',
} as const;

const GITHUB_SOURCE_ERRORS = {
  404: ['github_installation_not_found', 'github_repository_not_found', 'github_branch_not_found'],
  503: ['github_not_configured', 'github_unavailable'],
} as const;

export const App = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'workspaceId', 'name', 'slug', 'kind', 'source', 'image', 'port', 'cpuMillis', 'memoryMb', 'disk', 'url', 'subdomain',
    'github', 'buildCommand', 'startCommand', 'rootDirectory', 'desiredState', 'generation', 'status', 'statusDetail',
    'currentDeployment', 'runningSince', 'createdAt', 'updatedAt',
  ],
  properties: {
    id: Uuid,
    workspaceId: Uuid,
    name: { type: 'string' },
    slug: { type: 'string' },
    kind: { type: 'string', enum: ['web', 'worker'] },
    source: { type: 'string', enum: ['image', 'github', 'upload'] },
    image: { type: ['string', 'null'] },
    port: { type: ['integer', 'null'] },
    cpuMillis: { ...Count, description: 'reserved vCPU in millis' },
    memoryMb: { ...Count, description: 'reserved memory in MB' },
    disk: {
      type: 'object',
      additionalProperties: false,
      required: ['limitMb', 'usedMb', 'measuredAt'],
      description:
        "the project folder: its size, enforced by the server's kernel (a write past it fails with ENOSPC), and what the app's files take as the metrics pipeline last collected it (a read never asks the server: docs/decisions/0035-reads-from-collected-figures.md)",
      properties: {
        limitMb: { ...Count, description: 'reserved disk in MB' },
        usedMb: {
          type: ['integer', 'null'],
          minimum: 0,
          description: "MB the app's files took when last measured (see measuredAt); null when no measurement was collected yet (0 before the first deployment made the folder)",
        },
        measuredAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description:
            "the minute of the metrics sample that carried usedMb (its age; the server measures folders every SLIPWAY_METRICS_FOLDER_INTERVAL_MS, 5 min by default, and the control plane collects every minute, so usedMb may be that much older); null when usedMb was never measured",
        },
      },
    },
    url: { type: ['string', 'null'], description: 'web apps: <scheme>://<subdomain>.<apps domain>' },
    subdomain: { type: ['string', 'null'], description: 'web apps: <app-slug>-<workspace-slug>' },
    github: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        ...GithubSource.properties,
        accessLost: { type: 'boolean', description: 'the installation or the repository access is gone: deployments answer 409 github_access_lost' },
        accessLostReason: { type: ['string', 'null'], description: 'why access was lost, and what to do' },
      },
    },
    buildCommand: { type: ['string', 'null'], description: 'the build command the next deployment uses; null: detected' },
    startCommand: { type: ['string', 'null'], description: 'the start command the next deployment uses; null: detected' },
    rootDirectory: { type: ['string', 'null'], description: 'the folder of the upload the next deployment builds from; null: its root' },
    desiredState: { type: 'string', enum: ['running', 'stopped'], description: 'what the last accepted intent asked for (deploy, rollback, start, restart: running; stop: stopped)' },
    generation: {
      type: 'integer',
      minimum: 0,
      description: 'bumped by every accepted intent (deploy, rollback, start, stop, restart, delete): the intent with the highest generation wins, whatever order the work runs in',
    },
    status: AppStatus,
    statusDetail: StatusDetail,
    currentDeployment: { anyOf: [Deployment, { type: 'null' }], description: 'the deployment now in use (null before the first goes live)' },
    runningSince: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const AppList = listOf(App);

export const CreateAppRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'source', 'memoryMb'],
  properties: {
    name: AppName,
    kind: { type: 'string', enum: ['web', 'worker'] },
    source: { type: 'string', enum: ['image', 'github', 'upload'] },
    memoryMb: { type: 'integer', minimum: 1, maximum: 1_048_576, description: 'at least the plan minimum for apps' },
    cpuMillis: { type: 'integer', minimum: 1, maximum: 256_000, description: 'default: the plan minimum for apps' },
    diskMb: { type: 'integer', minimum: 1, maximum: 16_777_216, description: "size of the project folder in MB (default: the plan minimum for apps, 512 MB); reserved like memory" },
    image: { ...ImageRef, description: 'required when source is image' },
    port: { ...AppPort, description: 'web apps: the port the container listens on (default 8080)' },
    healthPath: { type: 'string', pattern: '^/[\\x21-\\x7e]{0,255}$', description: 'web apps: an HTTP path that must answer 2xx/3xx before a rollout switches (default: any HTTP response to GET /)' },
    github: GithubSource,
    ...BUILD_SETTINGS,
  },
} as const;

export const UpdateAppRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: AppName,
    image: ImageRef,
    port: AppPort,
    size: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cpuMillis: { type: 'integer', minimum: 1, maximum: 256_000 },
        memoryMb: { type: 'integer', minimum: 1, maximum: 1_048_576 },
        diskMb: { type: 'integer', minimum: 1, maximum: 16_777_216, description: 'only grows: the folder keeps its files' },
      },
      description: 'reserved at once, applied to the container (and the project folder) at the next deployment or restart',
    },
    ...BUILD_SETTINGS,
    github: GithubSourceChanges,
  },
} as const;

export const EnvVariable = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'value', 'secret', 'updatedAt'],
  properties: {
    key: { type: 'string' },
    value: { type: ['string', 'null'], description: 'null for secrets' },
    secret: { type: 'boolean' },
    updatedAt: Timestamp,
  },
} as const;

export const EnvVariableList = listOf(EnvVariable);

export const PutEnvRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['variables'],
  properties: {
    variables: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value'],
        properties: {
          key: { type: 'string', maxLength: 256, pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'a letter or _, then letters, digits or _ (at most 256)' },
          value: { type: 'string', maxLength: 32768, description: 'at most 32 KiB; for a secret, "" keeps the current value' },
          secret: { type: 'boolean', description: 'default false; secret values are encrypted at rest and never returned' },
        },
      },
    },
  },
} as const;

export const APPS = {
  tag: { name: 'apps', description: 'apps: containers with a reservation, variables, a project folder and, for web apps, a URL' },
  schemas: { AppStatus, App, AppList, CreateAppRequest, UpdateAppRequest, StatusDetail, EnvVariable, EnvVariableList, PutEnvRequest },
  operations: {
    listApps: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps',
      tag: 'apps',
      summary: 'Apps of the workspace, oldest first',
      auth: 'any',
      permission: 'apps.read',
      success: { status: 200, description: 'apps', schema: AppList },
    },
    createApp: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps',
      tag: 'apps',
      summary: 'Create an app; reserves its vCPU and memory; web apps get a subdomain and URL',
      description:
        'Nothing runs until the first deployment. `image` is required for source `image`. `cpuMillis` defaults to the plan ' +
        'minimum for apps; below a minimum is 400 `validation_failed`. Web apps listen on `port` (default 8080). ' +
        '`buildCommand`, `startCommand` and `rootDirectory` override detection for apps built from source (`upload`, `github`).',
      auth: 'any',
      permission: 'apps.write',
      body: CreateAppRequest,
      success: { status: 201, description: 'the app', schema: App },
      errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'], ...GITHUB_SOURCE_ERRORS },
    },
    getApp: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}',
      tag: 'apps',
      summary: 'An app',
      auth: 'any',
      permission: 'apps.read',
      success: { status: 200, description: 'the app', schema: App },
    },
    updateApp: {
      method: 'patch',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}',
      tag: 'apps',
      summary: 'Rename, change image or port, resize an app, or change its build settings',
      description:
        'A new size is reserved at once (402 when it does not fit) and applied to the container at the next deployment. ' +
        '`buildCommand`, `startCommand` and `rootDirectory` (apps built from source only; null goes back to detection) ' +
        'apply from the next deployment that builds.',
      auth: 'any',
      permission: 'apps.write',
      body: UpdateAppRequest,
      success: { status: 200, description: 'the app', schema: App },
      errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'], ...GITHUB_SOURCE_ERRORS },
    },
    deleteApp: {
      method: 'delete',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}',
      tag: 'apps',
      summary: 'Delete an app: quota released at once; containers, images and the project folder removed by a job',
      auth: 'any',
      permission: 'apps.write',
      success: { status: 200, description: 'deleted', schema: Ok },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    getAppEnv: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/env',
      tag: 'apps',
      summary: 'Environment variables, by key; secret values are null',
      auth: 'any',
      permission: 'env.read',
      success: { status: 200, description: 'variables', schema: EnvVariableList },
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
      body: PutEnvRequest,
      success: { status: 200, description: 'variables', schema: EnvVariableList },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    startApp: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/start',
      tag: 'apps',
      summary: "Bring the current deployment's container up again and put its route back",
      auth: 'any',
      permission: 'deployments.write',
      success: { status: 200, description: 'the app (desiredState running; status follows once the server did it)', schema: App },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['app_not_deployed'], 503: ['node_unavailable'] },
    },
    stopApp: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/stop',
      tag: 'apps',
      summary: 'Take the route offline and stop the container; the reservation and the project folder remain',
      auth: 'any',
      permission: 'deployments.write',
      success: { status: 200, description: 'the app (desiredState stopped)', schema: App },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 503: ['node_unavailable'] },
    },
    restartApp: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/restart',
      tag: 'apps',
      summary: "Restart the app: a new container of the current deployment's image with its current variables and size",
      description:
        "The running container is stopped (SIGTERM, its grace period), then a new one is made from the current deployment's " +
        'image (no build, no pull) with the variables and size the app has now, on the same project folder; its route comes ' +
        'back once it answers (docs/decisions/0027-1). Answers at once; `status` follows once the server did it.',
      auth: 'any',
      permission: 'deployments.write',
      success: { status: 200, description: 'the app', schema: App },
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
      query: LogQuery,
      success: { status: 200, description: 'a chunk of log lines', schema: LogChunk },
      errors: { 400: ['validation_failed'], 503: ['node_unavailable'] },
    },
    listAppEvents: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/apps/{appId}/events',
      tag: 'apps',
      summary: 'What the platform did to the app that its owners should know of (a move to another server), newest first',
      description: 'The 50 newest events.',
      auth: 'any',
      permission: 'apps.read',
      success: { status: 200, description: 'the events', schema: ResourceEventList },
    },
  },
} as const satisfies Resource;
