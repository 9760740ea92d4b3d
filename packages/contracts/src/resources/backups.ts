// Database backups and restores (issue 13): nightly and manual backups of a managed database, each a file on the
// database's server with its size and SHA-256, checked restorable after it completes; restore into a new database
// (the default of the peers' hosted counterparts) or into the same one after an automatic pre-restore backup.
import { NullableTimestamp, PageQuery, pageOf, Timestamp, Uuid, WORKSPACE_WRITE_DENIALS } from '../common';
import type { Resource } from '../resource';

export const BACKUP_KINDS = ['scheduled', 'manual', 'pre_restore'] as const;
export const BACKUP_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;

export const Backup = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'workspaceId', 'databaseId', 'databaseName', 'engine', 'version', 'kind', 'status', 'error', 'sizeBytes', 'sha256',
    'verification', 'createdAt', 'startedAt', 'completedAt', 'expiresAt', 'localCopy', 'offsite',
  ],
  properties: {
    id: Uuid,
    workspaceId: Uuid,
    databaseId: { ...Uuid, description: 'the database backed up (it may have been deleted since: its backups stay until they expire)' },
    databaseName: { type: 'string', description: "the database's name when the backup was made" },
    engine: { type: 'string', enum: ['postgres', 'mysql', 'redis', 'mongodb'] },
    version: { type: 'string' },
    kind: { type: 'string', enum: BACKUP_KINDS, description: 'scheduled: the nightly one. manual: asked for (at most one an hour). pre_restore: made automatically before a restore into the same database' },
    status: { type: 'string', enum: BACKUP_STATUSES, description: 'pending → running → completed | failed' },
    error: { type: ['string', 'null'], description: 'why it failed, in words a user can act on (null unless failed)' },
    sizeBytes: { type: ['integer', 'null'], minimum: 0, description: 'size of the file (null until completed)' },
    sha256: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$', description: "SHA-256 of the file, hex (the download's X-Checksum-Sha256 header)" },
    verification: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'message', 'checkedAt'],
      description: 'the check that the completed backup restores (pg_restore of the whole archive into nothing, dump completeness, RDB header), made right after it completes',
      properties: {
        status: { type: 'string', enum: ['pending', 'passed', 'failed'] },
        message: { type: ['string', 'null'] },
        checkedAt: NullableTimestamp,
      },
    },
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    completedAt: NullableTimestamp,
    expiresAt: { ...Timestamp, description: 'when the retention removes it (scheduled 7 days, manual 30, pre_restore 7 by default)' },
    localCopy: {
      type: 'boolean',
      description:
        "a file of it is on the database's server (always when no destination is in effect; with one, only the newest SLIPWAY_BACKUP_LOCAL_COPIES per database are kept there: the download needs it)",
    },
    offsite: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['destinationId', 'key', 'sizeBytes', 'sha256'],
      description:
        'where it is stored off the server (issue 33): the object at its backup destination, encrypted with the workspace backup key (slipway-sealed-v1) and read back (size and SHA-256) before the backup completed. null: not stored off the server',
      properties: {
        destinationId: { type: ['string', 'null'], format: 'uuid', description: 'null once the destination was removed (the object stays in its bucket, but the platform no longer reaches it)' },
        key: { type: 'string', description: "the object's key in the bucket (its manifest is `<key>.json`)" },
        sizeBytes: { type: 'integer', minimum: 0, description: 'size of the stored (encrypted) object' },
        sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored (encrypted) object' },
      },
    },
  },
} as const;

export const BackupPage = pageOf(Backup, 'pass as `cursor` for the next (older) page; null on the last page');
export const BackupListQuery = PageQuery;

export const RestoreBackupRequest = {
  type: 'object',
  additionalProperties: false,
  required: ['target'],
  properties: {
    target: {
      type: 'string',
      enum: ['new', 'same'],
      description:
        'new: a new database of the same engine and version (reserved like a create; the original untouched). same: the ' +
        'database backed up, after an automatic pre_restore backup of its current state (its credentials stay)',
    },
  },
} as const;

export const RestoreResult = {
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'databaseId', 'preRestoreBackupId'],
  properties: {
    ok: { type: 'boolean', const: true },
    databaseId: { ...Uuid, description: 'the database being restored into (the new one for target new); its status is restoring, then running' },
    preRestoreBackupId: { type: ['string', 'null'], format: 'uuid', description: 'target same: the backup of the state before the restore; null for new' },
  },
} as const;

const DB = '/v1/workspaces/{workspaceId}/databases/{databaseId}';
const ONE = `${DB}/backups/{backupId}`;

export const BACKUPS = {
  tag: { name: 'backups', description: 'database backups (nightly, manual, pre-restore), downloads and restores' },
  schemas: { Backup, BackupPage, RestoreBackupRequest, RestoreResult },
  operations: {
    listBackups: {
      method: 'get',
      path: `${DB}/backups`,
      tag: 'backups',
      summary: "Backups of a database (also of a deleted one, until they expire), newest first, a page at a time",
      auth: 'any',
      permission: 'databases.read',
      query: BackupListQuery,
      success: { status: 200, description: 'a page of backups', schema: BackupPage },
      errors: { 400: ['validation_failed', 'invalid_cursor'] },
    },
    createBackup: {
      method: 'post',
      path: `${DB}/backups`,
      tag: 'backups',
      summary: 'A manual backup now (status pending → running → completed | failed)',
      description:
        'At most one manual backup an hour per database: a second one within the hour is 429 `backup_rate_limited` with ' +
        'Retry-After (a failed one does not count). A backup or restore already running on the database is 409 ' +
        '`database_busy`; a database that is not running is 409 `invalid_state`.',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 202, description: 'the backup (pending)', schema: Backup },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['database_busy', 'invalid_state'], 429: ['backup_rate_limited'] },
    },
    getBackup: {
      method: 'get',
      path: ONE,
      tag: 'backups',
      summary: 'A backup',
      auth: 'any',
      permission: 'databases.read',
      success: { status: 200, description: 'the backup', schema: Backup },
    },
    deleteBackup: {
      method: 'delete',
      path: ONE,
      tag: 'backups',
      summary: 'Delete a backup: gone from the API at once, its file removed from the server by a job',
      auth: 'any',
      permission: 'databases.write',
      success: { status: 200, description: 'deleted', schema: { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { type: 'boolean' } } } },
      errors: { 403: WORKSPACE_WRITE_DENIALS, 409: ['database_busy'] },
    },
    downloadBackup: {
      method: 'get',
      path: `${ONE}/download`,
      tag: 'backups',
      summary: 'The backup file, streamed (owner, admin, developer); X-Checksum-Sha256 carries its SHA-256',
      description:
        'PostgreSQL: pg_dump custom format (pg_restore). MySQL: SQL of the one database without USE (mysql DBNAME < file). ' +
        'Redis: an RDB file. Only completed backups download (409 `invalid_state` otherwise).',
      auth: 'any',
      permission: 'databases.credentials',
      success: { status: 200, description: 'the file', schema: { type: 'string', format: 'binary' }, contentType: 'application/octet-stream', streamed: true },
      errors: { 409: ['invalid_state'], 503: ['node_unavailable'] },
    },
    restoreBackup: {
      method: 'post',
      path: `${ONE}/restore`,
      tag: 'backups',
      summary: 'Restore a completed backup into a new database or into the same one',
      description:
        'new: reserves the size of the database backed up like a create (402 `quota_exceeded` when it does not fit), creates ' +
        'a database of the same engine and version and loads the backup into it; the original (even deleted) is untouched. ' +
        'same: a pre_restore backup of the current state is made first (if it fails, nothing changes and the database says ' +
        'so); then connections are cut and the data replaced (status restoring → running), credentials unchanged. A restore ' +
        'that fails midway leaves the database failed, naming the pre-restore backup to restore. One backup or restore per ' +
        'database at a time (409 `database_busy`).',
      auth: 'any',
      permission: 'databases.write',
      body: RestoreBackupRequest,
      success: { status: 202, description: 'the restore started', schema: RestoreResult },
      errors: { 402: ['quota_exceeded'], 403: WORKSPACE_WRITE_DENIALS, 409: ['database_busy', 'invalid_state', 'name_taken'], 503: ['engine_unavailable', 'node_unavailable'] },
    },
  },
} as const satisfies Resource;
