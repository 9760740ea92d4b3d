// Schemas and pieces every resource shares: ids, timestamps, counts, roles, the error envelope, lists and pages.
// Resource modules (src/resources/*.ts) import from here; this module imports none of them.

export const Uuid = { type: 'string', format: 'uuid', examples: ['01936f3e-8a2b-7c4d-9e0f-123456789abc'] } as const;
export const Timestamp = {
  type: 'string',
  format: 'date-time',
  description: 'ISO 8601 in UTC with milliseconds',
  examples: ['2026-11-21T04:05:06.789Z'],
} as const;
export const NullableTimestamp = { type: ['string', 'null'], format: 'date-time', description: 'ISO 8601 in UTC with milliseconds, or null' } as const;
export const Count = { type: 'integer', minimum: 0, maximum: 9007199254740991 } as const;

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

/** `{ data: [...] }`: every list the API answers. */
export const listOf = <const T extends object>(items: T) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'array', items } },
  }) as const;

/** `{ data: [...], nextCursor }`: a page of a list read with `PageQuery`. */
export const pageOf = <const T extends object, const D extends string>(items: T, nextCursorDescription: D) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['data', 'nextCursor'],
    properties: {
      data: { type: 'array', items },
      nextCursor: { type: ['string', 'null'], description: nextCursorDescription },
    },
  }) as const;

/** The query of a paged list: the cursor of the previous page and a page size. */
export const PageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', maxLength: 200, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
} as const;

// ------------------------------------------------------------------------------------------------ errors

export const ErrorDetail = {
  type: 'object',
  description:
    'validation_failed: { field (JSON pointer into the body), message }; quota_exceeded: { resource, requested, available }; ' +
    'no_capacity: { resource (cpu, memory, disk), requested, available (on the roomiest server) }; ' +
    'invalid_hostname: { field, reason }',
  properties: {
    reason: { type: 'string' },
    field: { type: 'string' },
    message: { type: 'string' },
    resource: { type: 'string' },
    requested: { type: 'integer' },
    available: { type: 'integer' },
  },
} as const;

/** The error envelope, with the codes one status of one operation can answer. */
export const errorSchema = (codes: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: codes },
        message: { type: 'string', description: 'a sentence for people; never a stack trace, SQL or server path' },
        details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } },
      },
    },
  },
});

/** The 403 codes of any operation that changes a workspace: the role may not, or the workspace is suspended. */
export const WORKSPACE_WRITE_DENIALS = ['forbidden', 'workspace_suspended'] as const;

/** The schemas named in `components.schemas` that belong to no one resource. */
export const COMMON_SCHEMAS = { Uuid, Timestamp, Role, Ok, ErrorDetail } as const;

/**
 * Something the platform did to an app or a database that its owners should know of (issue 32: moved to another
 * server), newest first. Kinds are added as the platform learns to tell more.
 */
export const ResourceEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'message', 'at'],
  properties: {
    id: Uuid,
    kind: { type: 'string', enum: ['moved'], description: 'moved: the workspace, with this app or database, moved to another server' },
    message: { type: 'string', description: 'what happened, in a sentence' },
    at: { ...Timestamp, description: 'when it happened (for `moved`: when the other server took over)' },
  },
} as const;
export const ResourceEventList = listOf(ResourceEvent);
