// Backup destinations (issue 33): S3-compatible buckets a workspace's backups go to, so that they survive the
// server of the database. The secret key is sealed at rest and never returned.
import { listOf, Ok, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

export const PROBE_STAGES = ['write', 'read', 'delete'] as const;
export const PROBE_FAILURES = ['dns', 'unreachable', 'tls', 'credentials', 'bucket_missing', 'permission', 'clock_skew', 'mismatch', 'other'] as const;

const name = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$', description: 'lowercase letters, digits and dashes, unique in the workspace' } as const;
const endpoint = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  pattern: '^https?://[^/?#\\s]+/?$',
  description: 'the S3 endpoint, scheme and host[:port] only: `https://s3.eu-west-1.amazonaws.com`, `https://<account>.r2.cloudflarestorage.com`, `https://s3.us-west-004.backblazeb2.com`, `http://minio.internal:9000`',
} as const;
const region = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9-]+$', description: 'the region the signature names (`us-east-1`, `auto` for R2)' } as const;
const bucket = { type: 'string', minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$', description: "the bucket's name (S3 naming rules); it must exist" } as const;
const prefix = {
  type: 'string',
  maxLength: 256,
  pattern: '^([A-Za-z0-9!_.*\'()-]+/)*$',
  description: 'folder-like prefix for every object, empty or ending with `/` (`slipway/prod/`)',
} as const;
const pathStyle = { type: 'boolean', description: 'address the bucket in the path (`endpoint/bucket/key`): MinIO, Ceph and most self-hosted servers need it' } as const;
const accessKeyId = { type: 'string', minLength: 1, maxLength: 256, pattern: '^\\S+$' } as const;
const secretKey = { type: 'string', minLength: 1, maxLength: 512, pattern: '^\\S+$', writeOnly: true, description: 'sealed at rest, never returned' } as const;
const isDefault = { type: 'boolean', description: "the workspace's default: databases that name no destination back up here (one per workspace; setting it clears the others)" } as const;

export const BackupDestination = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'workspaceId', 'name', 'endpoint', 'region', 'bucket', 'prefix', 'pathStyle', 'accessKeyId', 'isDefault', 'createdAt', 'updatedAt'],
  properties: {
    id: Uuid,
    workspaceId: Uuid,
    name,
    endpoint,
    region,
    bucket,
    prefix,
    pathStyle,
    accessKeyId,
    isDefault,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
} as const;

export const BackupDestinationList = listOf(BackupDestination);

export const CreateBackupDestinationRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'endpoint', 'region', 'bucket', 'accessKeyId', 'secretKey'],
  properties: {
    name,
    endpoint,
    region,
    bucket,
    prefix: { ...prefix, default: '' },
    pathStyle: { ...pathStyle, default: false },
    accessKeyId,
    secretKey,
    isDefault: { ...isDefault, default: false },
  },
} as const;

export const UpdateBackupDestinationRequest = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { name, endpoint, region, bucket, prefix, pathStyle, accessKeyId, secretKey, isDefault },
} as const;

export const BackupDestinationTest = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'stage', 'reason', 'message', 'elapsedMs', 'server'],
  properties: {
    ok: { type: 'boolean', description: 'the probe object was written, read back intact and deleted' },
    stage: { type: ['string', 'null'], enum: [...PROBE_STAGES, null], description: 'the step that failed (null when ok)' },
    reason: {
      type: ['string', 'null'],
      enum: [...PROBE_FAILURES, null],
      description: 'dns: the host name does not resolve; unreachable: no connection; tls: certificate or TLS refused; credentials: unknown key or wrong secret; bucket_missing; permission: valid key without the right on the bucket; clock_skew: this server\'s clock; mismatch: the object came back different',
    },
    message: { type: 'string', description: 'what was checked, or what failed and what to do, in words' },
    elapsedMs: { type: 'integer', minimum: 0 },
    server: {
      type: ['string', 'null'],
      description:
        "the server the probe ran from: the workspace's server, where its backups upload from (its network is the one that matters); null: from the control plane, because the workspace has no server yet or its agent could not run the test (the message then says why)",
    },
  },
} as const;

export const DatabaseBackupDestination = {
  type: 'object',
  additionalProperties: false,
  required: ['databaseId', 'destinationId', 'effective', 'source'],
  properties: {
    databaseId: Uuid,
    destinationId: { type: ['string', 'null'], format: 'uuid', description: 'the destination the database names (null: none named)' },
    effective: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['id', 'name'],
      properties: { id: Uuid, name: { type: 'string' } },
      description: "where its backups go: the destination it names, else the workspace's default; null: they stay on its server only",
    },
    source: { type: 'string', enum: ['database', 'workspace_default', 'none'] },
  },
} as const;

export const SetDatabaseBackupDestinationRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['destinationId'],
  properties: { destinationId: { type: ['string', 'null'], format: 'uuid', description: "a destination of the workspace, or null for the workspace's default" } },
} as const;

const LIST = '/v1/workspaces/{workspaceId}/backup-destinations';
const ONE = `${LIST}/{destinationId}`;
const OF_DATABASE = '/v1/workspaces/{workspaceId}/databases/{databaseId}/backup-destination';

export const BACKUP_DESTINATIONS = {
  tag: { name: 'backup-destinations', description: 'S3-compatible buckets the backups go to (off the database\'s server), with a test call' },
  schemas: { BackupDestination, BackupDestinationList, CreateBackupDestinationRequest, UpdateBackupDestinationRequest, BackupDestinationTest, DatabaseBackupDestination, SetDatabaseBackupDestinationRequest },
  operations: {
    listBackupDestinations: {
      method: 'get',
      path: LIST,
      tag: 'backup-destinations',
      summary: 'Backup destinations of the workspace (never their secret keys), by name',
      auth: 'any',
      permission: 'backups.destinations.read',
      success: { status: 200, description: 'the destinations', schema: BackupDestinationList },
    },
    createBackupDestination: {
      method: 'post',
      path: LIST,
      tag: 'backup-destinations',
      summary: 'Add an S3-compatible destination (owner, admin); test it with the test call',
      auth: 'any',
      permission: 'backups.destinations.write',
      body: CreateBackupDestinationRequest,
      success: { status: 201, description: 'the destination, without its secret key', schema: BackupDestination },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
    },
    getBackupDestination: {
      method: 'get',
      path: ONE,
      tag: 'backup-destinations',
      summary: 'A backup destination, without its secret key',
      auth: 'any',
      permission: 'backups.destinations.read',
      success: { status: 200, description: 'the destination', schema: BackupDestination },
    },
    updateBackupDestination: {
      method: 'patch',
      path: ONE,
      tag: 'backup-destinations',
      summary: 'Change a destination (a new secret key replaces the sealed one); backups already there stay where they are',
      auth: 'any',
      permission: 'backups.destinations.write',
      body: UpdateBackupDestinationRequest,
      success: { status: 200, description: 'the destination', schema: BackupDestination },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['name_taken'] },
    },
    deleteBackupDestination: {
      method: 'delete',
      path: ONE,
      tag: 'backup-destinations',
      summary: 'Remove a destination; the objects in the bucket stay. Databases that named it fall back to the workspace default',
      auth: 'any',
      permission: 'backups.destinations.write',
      success: { status: 200, description: 'removed', schema: Ok },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    testBackupDestination: {
      method: 'post',
      path: `${ONE}/test`,
      tag: 'backup-destinations',
      summary: 'Write, read back and delete a probe object; the answer says in words what failed (DNS, TLS, credentials, bucket missing, permission, clock skew)',
      description: 'A failed probe is still 200: `ok` false with the stage, the reason and a sentence.',
      auth: 'any',
      permission: 'backups.destinations.write',
      success: { status: 200, description: 'the outcome of the probe', schema: BackupDestinationTest },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
    getDatabaseBackupDestination: {
      method: 'get',
      path: OF_DATABASE,
      tag: 'backup-destinations',
      summary: "Where a database's backups go: the destination it names, or the workspace's default",
      auth: 'any',
      permission: 'databases.read',
      success: { status: 200, description: 'the destination in effect', schema: DatabaseBackupDestination },
    },
    setDatabaseBackupDestination: {
      method: 'put',
      path: OF_DATABASE,
      tag: 'backup-destinations',
      summary: "Name the destination a database's backups go to (null: the workspace's default), from its next backup on",
      auth: 'any',
      permission: 'databases.write',
      body: SetDatabaseBackupDestinationRequest,
      success: { status: 200, description: 'the destination in effect', schema: DatabaseBackupDestination },
      errors: { 403: WORKSPACE_WRITE_DENIALS },
    },
  },
} as const satisfies Resource;
