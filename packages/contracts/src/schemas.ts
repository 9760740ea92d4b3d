// JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every body the API reads or writes. Written as `as const`
// values so TypeScript types derive from them (types.ts) and ajv validates with the very same objects.
// Each named schema here becomes `#/components/schemas/<Name>` in the served document (document.ts).

import { FILES_SCHEMAS } from './files.schemas';

export const Uuid = { type: 'string', format: 'uuid', examples: ['01936f3e-8a2b-7c4d-9e0f-123456789abc'] } as const;
export const Timestamp = {
  type: 'string',
  format: 'date-time',
  description: 'ISO 8601 in UTC with milliseconds',
  examples: ['2026-11-21T04:05:06.789Z'],
} as const;
const NullableTimestamp = { type: ['string', 'null'], format: 'date-time', description: 'ISO 8601 in UTC with milliseconds, or null' } as const;
const Count = { type: 'integer', minimum: 0, maximum: 9007199254740991 } as const;

export const Role = {
  type: 'string',
  enum: ['owner', 'admin', 'developer', 'viewer'],
  description:
    'owner: everything. admin: everything but deleting the workspace and changing owners. ' +
    'developer: apps, deployments, files, databases, domains and their own tokens. viewer: read only.',
} as const;

export const Ok = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
} as const;

// ---------------------------------------------------------------------------------------------- auth

const Email = { type: 'string', format: 'email', minLength: 3, maxLength: 254, description: 'compared case-insensitively' } as const;

export const User = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'email', 'name', 'createdAt'],
  properties: { id: Uuid, email: { type: 'string' }, name: { type: 'string' }, createdAt: Timestamp },
} as const;

export const UserEnvelope = {
  type: 'object',
  additionalProperties: false,
  required: ['user'],
  properties: { user: User },
} as const;

export const SignupRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password', 'name'],
  properties: {
    email: Email,
    password: { type: 'string', minLength: 10, maxLength: 256, description: 'at least 10 characters' },
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S', description: '1 to 100 characters, not only spaces' },
  },
} as const;

export const LoginRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: { email: Email, password: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;

// ------------------------------------------------------------------------------------------ workspaces

const WorkspaceName = { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' } as const;
export const WorkspaceSlug = {
  type: 'string',
  minLength: 1,
  maxLength: 30,
  pattern: '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$',
  description: 'lowercase DNS label of at most 30 characters, unique across the platform',
} as const;

export const Workspace = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'slug', 'role', 'suspended', 'createdAt'],
  properties: {
    id: Uuid,
    name: { type: 'string' },
    slug: { type: 'string' },
    role: Role,
    suspended: { type: 'boolean', description: 'true once the grace period ended without a paid plan: mutations answer 403 workspace_suspended' },
    createdAt: Timestamp,
  },
} as const;

export const WorkspaceList = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: Workspace } },
} as const;

export const CreateWorkspaceRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: WorkspaceName },
} as const;

export const UpdateWorkspaceRequest = {
  type: 'object',
  additionalProperties: false,
  properties: { name: WorkspaceName, slug: WorkspaceSlug },
} as const;

// ------------------------------------------------------------------------------------------------ plans

export const ResourceSize = {
  type: 'object',
  additionalProperties: false,
  required: ['cpuMillis', 'memoryMb', 'diskMb'],
  properties: { cpuMillis: Count, memoryMb: Count, diskMb: Count },
} as const;

export const PlanLimits = {
  type: 'object',
  additionalProperties: false,
  required: ['cpuMillis', 'memoryMb', 'maxMembers'],
  properties: { cpuMillis: Count, memoryMb: Count, maxMembers: Count },
} as const;

export const Minimums = {
  type: 'object',
  additionalProperties: false,
  required: ['app', 'postgres', 'mysql', 'redis', 'mongodb'],
  description: 'the smallest size each resource type may be created or resized to',
  properties: { app: ResourceSize, postgres: ResourceSize, mysql: ResourceSize, redis: ResourceSize, mongodb: ResourceSize },
} as const;

export const PlanSummary = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'kind', 'version', 'priceCents'],
  properties: {
    id: Uuid,
    slug: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', enum: ['trial', 'paid'] },
    version: { type: 'integer', minimum: 1 },
    priceCents: Count,
  },
} as const;

export const WorkspacePlan = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'plan', 'trialEndsAt', 'graceEndsAt', 'suspendedAt', 'limits', 'usage', 'overQuota', 'hasExtras', 'minimums'],
  properties: {
    status: {
      type: 'string',
      enum: ['none', 'active', 'past_due'],
      description: 'billing status: none (trial, nothing paid), active (paid), past_due (payment failed)',
    },
    plan: PlanSummary,
    trialEndsAt: Timestamp,
    graceEndsAt: Timestamp,
    suspendedAt: NullableTimestamp,
    limits: { ...PlanLimits, description: 'effective limits: the plan plus extras' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['cpuMillis', 'memoryMb', 'diskMb', 'members'],
      description: 'reserved by every app and database (running or stopped), and the member count',
      properties: { cpuMillis: Count, memoryMb: Count, diskMb: Count, members: Count },
    },
    overQuota: { type: 'boolean', description: 'usage is above a limit (after a downgrade or when extras were removed)' },
    hasExtras: { type: 'boolean' },
    minimums: Minimums,
  },
} as const;

export const CatalogPlan = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'kind', 'version', 'priceCents', 'currency', 'limits'],
  properties: {
    id: Uuid,
    slug: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string', enum: ['paid'] },
    version: { type: 'integer', minimum: 1 },
    priceCents: { ...Count, description: 'monthly price in cents' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' },
    limits: PlanLimits,
  },
} as const;

export const PlanCatalog = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: CatalogPlan } },
} as const;

// ---------------------------------------------------------------------------------------------- members

export const Member = {
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'email', 'name', 'role', 'createdAt'],
  properties: { userId: Uuid, email: { type: 'string' }, name: { type: 'string' }, role: Role, createdAt: Timestamp },
} as const;

export const MemberList = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: Member } },
} as const;

export const AddMemberRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'role'],
  properties: { email: Email, role: Role },
} as const;

export const UpdateMemberRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['role'],
  properties: { role: Role },
} as const;

// ----------------------------------------------------------------------------------------------- tokens

const apiTokenProperties = {
  id: Uuid,
  name: { type: 'string' },
  prefix: { type: 'string', description: 'the first characters of the value, to recognise it' },
  createdBy: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name'],
    properties: { id: Uuid, name: { type: 'string' } },
  },
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  lastUsedAt: NullableTimestamp,
} as const;

export const ApiToken = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'prefix', 'createdBy', 'createdAt', 'expiresAt', 'lastUsedAt'],
  properties: apiTokenProperties,
} as const;

export const ApiTokenList = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: ApiToken } },
} as const;

export const CreatedApiToken = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'prefix', 'createdBy', 'createdAt', 'expiresAt', 'lastUsedAt', 'token'],
  properties: {
    ...apiTokenProperties,
    token: { type: 'string', pattern: '^svc_', description: 'the value, shown this once: send it as `Authorization: Bearer <token>`' },
  },
} as const;

export const CreateTokenRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' },
    expiresInDays: { type: 'integer', minimum: 1, maximum: 365, description: 'omit for a token that does not expire' },
  },
} as const;

// ------------------------------------------------------------------------------------------------- nodes

export const EnrollAgentRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['token', 'csr', 'name', 'grpcAddress', 'publicIpv4', 'cpuMillis', 'memoryMb', 'version'],
  properties: {
    token: { type: 'string', minLength: 8, maxLength: 200, description: 'one-time enrollment token (`slipway-admin enroll-token create`)' },
    csr: { type: 'string', minLength: 100, maxLength: 16384, description: "PEM certificate signing request made with the agent's own key" },
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'node name; joining again under a name replaces its certificate' },
    grpcAddress: { type: 'string', maxLength: 262, pattern: '^[^\\s:]+:\\d{1,5}$', description: 'host:port the control plane dials' },
    publicIpv4: { type: 'array', maxItems: 16, items: { type: 'string', format: 'ipv4' } },
    cpuMillis: { type: 'integer', minimum: 1, maximum: 10_000_000 },
    memoryMb: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
    version: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

export const EnrolledAgent = {
  type: 'object',
  additionalProperties: false,
  required: ['nodeId', 'certificate', 'caCertificate'],
  properties: {
    nodeId: Uuid,
    certificate: { type: 'string', description: "the agent's server certificate (PEM), signed by the control plane's CA" },
    caCertificate: { type: 'string', description: "the CA's certificate (PEM): the agent accepts only clients it signed" },
  },
} as const;

// -------------------------------------------------------------------------------------------------- apps

const AppName = { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' } as const;
const ImageRef = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  pattern: '^[a-zA-Z0-9][a-zA-Z0-9._/:@+-]*$',
  description: 'a container image reference: name[:tag][@digest]',
} as const;
const AppPort = { type: 'integer', minimum: 1, maximum: 65535 } as const;

export const AppStatus = {
  type: 'string',
  enum: ['idle', 'deploying', 'running', 'crashed', 'stopped', 'failed'],
  description:
    'idle: never deployed. deploying: a deployment is rolling out. running: the live deployment serves. crashed: its ' +
    'container exited on its own (see statusDetail; Docker brings it back with backoff). stopped: stopped on request. ' +
    'failed: the last deployment failed and none is live.',
} as const;

export const DeploymentStatus = {
  type: 'string',
  enum: ['queued', 'building', 'deploying', 'live', 'superseded', 'failed', 'cancelled'],
  description: 'queued → building → deploying → live; live → superseded when another goes live; failed (failureReason), cancelled',
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

export const DeploymentPage = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'nextCursor'],
  properties: {
    data: { type: 'array', items: Deployment },
    nextCursor: { type: ['string', 'null'], description: 'pass as `cursor` for the next (older) page; null on the last page' },
  },
} as const;

export const CreateDeploymentRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    image: { ...ImageRef, description: "image apps: the image to deploy (default: the app's image)" },
    commitSha: { type: 'string', pattern: '^[0-9a-f]{7,40}$', description: 'GitHub apps: the commit to deploy (default: the head of the branch)' },
  },
} as const;

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
    rootDir: { type: 'string', maxLength: 1024 },
    autoDeploy: { type: 'boolean' },
    watchRootOnly: { type: 'boolean' },
  },
} as const;

export const App = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'workspaceId', 'name', 'slug', 'kind', 'source', 'image', 'port', 'cpuMillis', 'memoryMb', 'url', 'subdomain',
    'github', 'desiredState', 'status', 'statusDetail', 'currentDeployment', 'runningSince', 'createdAt', 'updatedAt',
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
    url: { type: ['string', 'null'], description: 'web apps: <scheme>://<subdomain>.<apps domain>' },
    subdomain: { type: ['string', 'null'], description: 'web apps: <app-slug>-<workspace-slug>' },
    github: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: { ...GithubSource.properties, accessLost: { type: 'boolean' } },
    },
    desiredState: { type: 'string', enum: ['running', 'stopped'] },
    status: AppStatus,
    statusDetail: StatusDetail,
    currentDeployment: { anyOf: [Deployment, { type: 'null' }], description: 'the deployment now in use (null before the first goes live)' },
    runningSince: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const AppList = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: App } },
} as const;

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
    image: { ...ImageRef, description: 'required when source is image' },
    port: { ...AppPort, description: 'web apps: the port the container listens on (default 8080)' },
    healthPath: { type: 'string', pattern: '^/[\\x21-\\x7e]{0,255}$', description: 'web apps: an HTTP path that must answer 2xx/3xx before a rollout switches (default: a TCP connect)' },
    github: GithubSource,
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
      properties: { cpuMillis: { type: 'integer', minimum: 1, maximum: 256_000 }, memoryMb: { type: 'integer', minimum: 1, maximum: 1_048_576 } },
      description: 'reserved at once, applied to the container at the next deployment',
    },
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

export const EnvVariableList = {
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: EnvVariable } },
} as const;

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

// ------------------------------------------------------------------------------------------------- meta

export const Health = { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { type: 'boolean' } } } as const;

export const Readiness = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'checks'],
  properties: {
    ok: { type: 'boolean' },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'ok'],
        properties: { name: { type: 'string' }, ok: { type: 'boolean' }, error: { type: 'string' } },
      },
    },
  },
} as const;

export const OpenApiDocument = { type: 'object', description: 'this document' } as const;

export const ErrorDetail = {
  type: 'object',
  description:
    'validation_failed: { field (JSON pointer into the body), message }; quota_exceeded: { resource, requested, available }',
  properties: {
    field: { type: 'string' },
    message: { type: 'string' },
    resource: { type: 'string' },
    requested: { type: 'integer' },
    available: { type: 'integer' },
  },
} as const;

/** Every schema that gets a name in `components.schemas`. */
export const COMPONENT_SCHEMAS = {
  ...FILES_SCHEMAS,
  Uuid,
  Timestamp,
  Role,
  Ok,
  User,
  UserEnvelope,
  SignupRequest,
  LoginRequest,
  Workspace,
  WorkspaceList,
  CreateWorkspaceRequest,
  UpdateWorkspaceRequest,
  ResourceSize,
  PlanLimits,
  Minimums,
  PlanSummary,
  WorkspacePlan,
  CatalogPlan,
  PlanCatalog,
  Member,
  MemberList,
  AddMemberRequest,
  UpdateMemberRequest,
  ApiToken,
  ApiTokenList,
  CreatedApiToken,
  CreateTokenRequest,
  EnrollAgentRequest,
  EnrolledAgent,
  AppStatus,
  App,
  AppList,
  CreateAppRequest,
  UpdateAppRequest,
  StatusDetail,
  EnvVariable,
  EnvVariableList,
  PutEnvRequest,
  DeploymentStatus,
  Deployment,
  DeploymentPage,
  CreateDeploymentRequest,
  LogChunk,
  Health,
  Readiness,
  ErrorDetail,
} as const;

// ------------------------------------------------------------------------------------------- query strings
// Query parameters of an operation, as one object schema: document.ts renders each property as a parameter,
// validation.ts validates the query with type coercion and fills in the defaults.

export const DeploymentListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 200, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
} as const;

export const LogQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'integer', minimum: 0, maximum: 9007199254740991, default: 0, description: 'the last seq already read (nextAfter)' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 500 },
  },
} as const;
