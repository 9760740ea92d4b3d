// Managed databases (issue 12): PostgreSQL, MySQL, Redis and MongoDB on the workspace's private network at
// `<slug>.internal`, with a reservation like an app's, credentials sealed at rest, `connect` writing the URL into an
// app's variables, and public access over TLS from given address ranges only.
import { Count, listOf, NullableTimestamp, Ok, ResourceEventList, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import { DATABASE_ENGINES } from '../facts/databases';
import type { Resource } from '../resource';


const DatabaseName = { type: 'string', minLength: 1, maxLength: 64, pattern: '\\S', description: '1 to 64 characters, not only spaces' } as const;
const DatabaseEngine = {
  type: 'string',
  enum: DATABASE_ENGINES,
  description: 'postgres (PostgreSQL), mysql (MySQL; MariaDB where the platform runs its local stand-in), redis, mongodb',
} as const;
const CpuMillis = { type: 'integer', minimum: 1, maximum: 256_000 } as const;
const MemoryMb = { type: 'integer', minimum: 1, maximum: 1_048_576 } as const;
const DiskMb = { type: 'integer', minimum: 1, maximum: 16_777_216 } as const;
// Written like an address range: IPv4 `a.b.c.d/n` (n ≤ 32) or IPv6 `x::/n` (n ≤ 128); a bare address is one host.
// Host bits set (10.0.0.1/8) are refused with the normalised range in the message (400 validation_failed).
const Cidr = { type: 'string', minLength: 2, maxLength: 64, pattern: '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$', description: 'an IPv4 or IPv6 address range (CIDR); host bits must be zero' } as const;

export const DatabaseStatus = {
  type: 'string',
  enum: ['provisioning', 'running', 'stopped', 'updating', 'restoring', 'failed', 'deleting'],
  description:
    'provisioning: being created (running once the engine accepts an authenticated connection). running: serving. ' +
    'stopped: stopped on request (reservation and data kept). updating: a resize, a password rotation or a public-access ' +
    'change is being applied. restoring: a backup is being restored. failed: the last operation failed (statusMessage ' +
    'says why; the data is kept). deleting: being removed.',
} as const;

export const DatabasePublicAccess = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'host', 'port', 'allowedCidrs'],
  description: "public access over TLS: the server's public address and a port from 20000 to 20999 (null while disabled)",
  properties: {
    enabled: { type: 'boolean' },
    host: { type: ['string', 'null'], description: "the server's public address (null while disabled)" },
    port: { type: ['integer', 'null'], minimum: 20000, maximum: 20999 },
    allowedCidrs: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const Database = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'workspaceId', 'name', 'slug', 'engine', 'version', 'cpuMillis', 'memoryMb', 'diskMb', 'status', 'desiredState', 'generation',
    'internalHost', 'port', 'username', 'databaseName', 'public', 'statusMessage', 'runningSince', 'createdAt', 'updatedAt',
  ],
  properties: {
    id: Uuid,
    workspaceId: Uuid,
    name: { type: 'string' },
    slug: { type: 'string', description: 'a DNS label; the database is `<slug>.internal` on the private network' },
    engine: DatabaseEngine,
    version: { type: 'string' },
    cpuMillis: { ...Count, description: 'reserved vCPU in millis (the container\'s CPU limit)' },
    memoryMb: { ...Count, description: "reserved memory in MB (the container's memory limit; the engine's own memory settings follow it)" },
    diskMb: { ...Count, description: 'reserved disk in MB for the data' },
    status: DatabaseStatus,
    desiredState: { type: 'string', enum: ['running', 'stopped'] },
    generation: { type: 'integer', minimum: 0, description: 'bumped by every accepted intent (create, stop, start, resize, public access, rotation): the last one wins' },
    internalHost: { type: 'string', description: '<slug>.internal, reachable from the apps of the workspace only' },
    port: { type: 'integer', description: 'the port on the private network (5432, 3306, 6379, 27017)' },
    username: { type: 'string' },
    databaseName: { type: 'string', description: 'the database (Redis: the logical database number, "0")' },
    public: DatabasePublicAccess,
    statusMessage: { type: ['string', 'null'], description: 'why the database failed, or what is being done' },
    runningSince: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const DatabaseList = listOf(Database);

export const CreateDatabaseRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'engine', 'memoryMb'],
  properties: {
    name: DatabaseName,
    engine: DatabaseEngine,
    memoryMb: { ...MemoryMb, description: "at least the plan's minimum for the engine" },
    cpuMillis: { ...CpuMillis, description: "default: the plan's minimum for the engine" },
    diskMb: { ...DiskMb, description: "disk reserved for the data (default: the plan's minimum for the engine)" },
    version: { type: 'string', minLength: 1, maxLength: 32, description: 'one of the versions GET /v1/database-engines lists (default: the engine\'s default)' },
  },
} as const;

export const UpdateDatabaseRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: DatabaseName,
    cpuMillis: CpuMillis,
    memoryMb: MemoryMb,
  },
  description: 'a new size is reserved at once (402 when it does not fit); the container is then recreated on its data (status updating → running)',
} as const;

export const PutDatabasePublicRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled'],
  properties: {
    enabled: { type: 'boolean' },
    allowedCidrs: { type: 'array', maxItems: 64, items: Cidr, description: 'required (at least one) to enable; 0.0.0.0/0 and ::/0 allow everyone' },
  },
} as const;

export const ConnectDatabaseRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['appId'],
  properties: {
    appId: Uuid,
    variable: {
      type: 'string',
      maxLength: 256,
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description: 'the variable to write (default DATABASE_URL for postgres and mysql, REDIS_URL, MONGODB_URL)',
    },
  },
} as const;

export const ConnectDatabaseResult = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'variable'],
  properties: { ok: { type: 'boolean' }, variable: { type: 'string', description: 'the secret variable written; it applies at the next deployment or restart' } },
} as const;

export const DatabaseConnection = {
  type: 'object',
  additionalProperties: false,
  required: ['host', 'port', 'username', 'password', 'databaseName', 'url', 'publicUrl', 'caCertificateUrl'],
  properties: {
    host: { type: 'string', description: '<slug>.internal' },
    port: { type: 'integer' },
    username: { type: 'string' },
    password: { type: 'string' },
    databaseName: { type: 'string' },
    url: { type: 'string', description: 'the URL on the private network, every part percent-encoded' },
    publicUrl: { type: ['string', 'null'], description: 'the URL through the public port, TLS required (null while public access is off)' },
    caCertificateUrl: { type: 'string', description: "where the CA certificate that signs the public port's certificate is (verify-full)" },
  },
} as const;

export const DatabaseEngineInfo = {
  type: 'object',
  additionalProperties: false,
  required: ['engine', 'versions', 'defaultVersion', 'available', 'image', 'reason', 'checkedAt'],
  properties: {
    engine: DatabaseEngine,
    versions: { type: 'array', items: { type: 'string' } },
    defaultVersion: { type: 'string' },
    available: { type: 'boolean', description: "whether this platform can run it now (its image is on the workspace's server)" },
    image: { type: 'string', description: 'the image the platform runs for it' },
    reason: { type: ['string', 'null'], description: 'why it is not available, and how to make it so' },
    checkedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: "when the server's agent last said so, at its health check (this read never asks the server: docs/decisions/0035-reads-from-collected-figures.md); null when no server has reported yet",
    },
  },
} as const;

export const DatabaseEngineList = listOf(DatabaseEngineInfo);

const ID = '/v1/workspaces/{workspaceId}/databases/{databaseId}';

export const DATABASES = {
  tag: { name: 'databases', description: 'managed PostgreSQL, MySQL, Redis and MongoDB on the private network, public access over TLS' },
  schemas: {
    DatabaseStatus,
    Database,
    DatabaseList,
    DatabasePublicAccess,
    CreateDatabaseRequest,
    UpdateDatabaseRequest,
    PutDatabasePublicRequest,
    ConnectDatabaseRequest,
    ConnectDatabaseResult,
    DatabaseConnection,
    DatabaseEngineInfo,
    DatabaseEngineList,
  },
  operations: {
    listDatabaseEngines: {
      method: 'get',
      path: '/v1/database-engines',
      tag: 'databases',
      summary: 'Engines, their versions, and whether this platform can run them now',
      auth: 'public',
      success: { status: 200, description: 'engines', schema: DatabaseEngineList },
    },
    getDatabaseCaCertificate: {
      method: 'get',
      path: '/v1/database-ca.pem',
      tag: 'databases',
      summary: "The CA certificate that signs databases' public TLS certificates (for sslmode=verify-full, --tls-cacert, …)",
      auth: 'public',
      success: { status: 200, description: 'a PEM certificate', schema: { type: 'string' }, contentType: 'application/x-pem-file', streamed: true },
    },
    listDatabases: {
      method: 'get',
      path: '/v1/workspaces/{workspaceId}/databases',
      tag: 'databases',
      summary: 'Databases of the workspace, oldest first',
      auth: 'any',
      permission: 'databases.read',
      success: { status: 200, description: 'databases', schema: DatabaseList },
    },
    createDatabase: {
      method: 'post',
      path: '/v1/workspaces/{workspaceId}/databases',
      tag: 'databases',
      summary: 'Create a database; reserves its vCPU, memory and disk; status provisioning → running',
      description:
        'A version not in the catalog or a size below the plan minimum for the engine is 400 `validation_failed`. An engine ' +
        'whose image this platform does not have answers 503 `engine_unavailable` (naming the image and how to load it) and ' +
        'reserves nothing. The password is random (URL-safe, 43 characters), sealed at rest; read it with GET …/connection.',
      auth: 'any',
      permission: 'databases.write',
      body: CreateDatabaseRequest,
      success: { status: 201, description: 'the database', schema: Database },
      errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'], 503: ['engine_unavailable', 'node_unavailable'] },
    },
    getDatabase: {
      method: 'get',
      path: ID,
      tag: 'databases',
      summary: 'A database',
      auth: 'any',
      permission: 'databases.read',
      success: { status: 200, description: 'the database', schema: Database },
    },
    updateDatabase: {
      method: 'patch',
      path: ID,
      tag: 'databases',
      summary: 'Rename or resize; a new size is reserved at once, then the container is recreated on its data',
      description:
        'A rename changes `name` only (the slug, hence `<slug>.internal` and connected URLs, stays). A resize answers with status ' +
        '`updating`; it becomes `running` once the engine accepts connections again at the new size. A resize while another ' +
        'resize or a rotation runs is 409 `database_busy`; on a deleting database 409 `invalid_state`.',
      auth: 'any',
      permission: 'databases.write',
      body: UpdateDatabaseRequest,
      success: { status: 200, description: 'the database', schema: Database },
      errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken', 'database_busy', 'invalid_state'] },
    },
    deleteDatabase: {
      method: 'delete',
      path: ID,
      tag: 'databases',
      summary: 'Delete a database: quota released at once; its container and data are erased by a job',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 200, description: 'deleted', schema: Ok },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    stopDatabase: {
      method: 'post',
      path: `${ID}/stop`,
      tag: 'databases',
      summary: 'Stop the engine; the reservation and the data stay',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 200, description: 'the database (desiredState stopped; status follows)', schema: Database },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['invalid_state'] },
    },
    startDatabase: {
      method: 'post',
      path: `${ID}/start`,
      tag: 'databases',
      summary: 'Start a stopped (or failed) database again on its data',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 200, description: 'the database (desiredState running; status follows)', schema: Database },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['invalid_state'] },
    },
    rotateDatabasePassword: {
      method: 'post',
      path: `${ID}/rotate-password`,
      tag: 'databases',
      summary: 'A new random password, applied inside the running engine (no restart, no data loss); the old one stops working',
      description:
        'Answers once the engine has the new password: from this answer on the old one is refused and `GET …/connection` ' +
        'shows the new one (while a rotation runs, the connection answers 409 `database_busy` rather than a password the ' +
        'engine may refuse). 503 `node_unavailable` when the server refused the rotation (the old password still works) or ' +
        'did not confirm it within 30 s (the rotation goes on; the database shows running once done). ' +
        'Connected apps keep their variable: connect them again (or update it) and restart them. Only a running database can ' +
        'rotate (409 `invalid_state` otherwise); while a resize or another rotation runs, 409 `database_busy`.',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 200, description: 'the database, once its engine has the new password', schema: Database },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['database_busy', 'invalid_state'], 503: ['node_unavailable'] },
    },
    connectDatabase: {
      method: 'post',
      path: `${ID}/connect`,
      tag: 'databases',
      summary: "Store the connection URL as a secret variable of an app of the workspace (applies at its next deployment or restart)",
      auth: 'any',
      permission: 'databases.write',
      body: ConnectDatabaseRequest,
      success: { status: 200, description: 'the variable written', schema: ConnectDatabaseResult },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['invalid_state'] },
    },
    getDatabaseConnection: {
      method: 'get',
      path: `${ID}/connection`,
      tag: 'databases',
      summary: 'Host, port, credentials and URLs (owner, admin, developer; never viewers)',
      auth: 'any',
      permission: 'databases.credentials',
      description: 'Never a password the engine no longer (or not yet) accepts: while a rotation runs, 409 `database_busy`.',
      success: { status: 200, description: 'the connection', schema: DatabaseConnection },
      errors: { 403: ['forbidden'], 409: ['database_busy'] },
    },
    listDatabaseEvents: {
      method: 'get',
      path: `${ID}/events`,
      tag: 'databases',
      summary: 'What the platform did to the database that its owners should know of (a move to another server), newest first',
      description: 'The 50 newest events.',
      auth: 'any',
      permission: 'databases.read',
      success: { status: 200, description: 'the events', schema: ResourceEventList },
    },
    putDatabasePublic: {
      method: 'put',
      path: `${ID}/public`,
      tag: 'databases',
      summary: 'Switch public access over TLS on (from the given address ranges only) or off',
      description:
        'Enabling needs at least one range. Ranges are IPv4 or IPv6 CIDRs; a range with host bits set (10.0.0.1/8) is refused ' +
        'with the normalised range in the message, not silently changed. A port from 20000 to 20999 is taken on the server and ' +
        'released when disabled. A new list applies to new connections at once.',
      auth: 'any',
      permission: 'databases.write',
      body: PutDatabasePublicRequest,
      success: { status: 200, description: 'the database', schema: Database },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['invalid_state', 'database_busy'], 503: ['node_unavailable'] },
    },
  },
} as const satisfies Resource;
