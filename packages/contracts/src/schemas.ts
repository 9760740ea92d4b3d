// JSON Schemas (2020-12, as OpenAPI 3.1 uses) of every body the API reads or writes. Written as `as const`
// values so TypeScript types derive from them (types.ts) and ajv validates with the very same objects.
// Each named schema here becomes `#/components/schemas/<Name>` in the served document (document.ts).

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
  Health,
  Readiness,
  ErrorDetail,
} as const;
