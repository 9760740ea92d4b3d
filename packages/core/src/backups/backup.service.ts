import type { Backup, BackupPage, RestoreResult } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import type { DatabaseRepository } from '../databases/database.ports';
import type { DatabaseService } from '../databases/database.service';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { BACKUP_RESTORE_JOB, BACKUP_RUN_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import { DEFAULT_BACKUP_SETTINGS, type BackupAgent, type BackupRecord, type BackupRepository, type BackupSettings } from './backup.ports';
import { newBackup } from './schedule';

/** A manual backup at most this often per database (a failed one does not count). */
export const MANUAL_BACKUP_INTERVAL_MS = 3_600_000;
const CURSOR_MAX = 200;
/** Work is running on the database: a backup or a restore waits for it (409 database_busy). */
const BUSY = ['provisioning', 'updating', 'restoring'];

export interface BackupServiceDeps {
  backups: BackupRepository;
  databases: DatabaseRepository;
  /** Restore into a new database creates it like a create (quota, engine check, converge job). */
  databaseService: DatabaseService;
  nodes: NodeRepository;
  jobs: JobQueue;
  clock: Clock;
  logger: Logger;
  settings?: BackupSettings;
  /** The agents' Backups service (downloads); without it downloads answer 503 node_unavailable. */
  agents?: BackupAgent;
}

/**
 * Database backups, request side (issue 13): manual backups (one an hour), lists and reads (also of a deleted
 * database's backups, which stay until they expire), deletion, download (streamed from the agent), and restores into
 * a new database (created like a create) or into the same one (a pre_restore backup first). The work itself is the
 * `backup.*` jobs' (BackupJobService).
 */
export class BackupService {
  private readonly settings: BackupSettings;

  constructor(private readonly deps: BackupServiceDeps) {
    this.settings = deps.settings ?? DEFAULT_BACKUP_SETTINGS;
  }

  async list(access: WorkspaceAccess, databaseId: string, page: { cursor?: string; limit: number }): Promise<BackupPage> {
    const scope = { workspaceId: access.workspace.id, databaseId };
    const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const rows = await this.deps.backups.list(scope, { before, limit: page.limit + 1 });
    if (!rows.length && !before && !(await this.deps.databases.find(scope))) throw notFoundDatabase();
    const data = rows.slice(0, page.limit);
    const last = data[data.length - 1];
    return { data: data.map(toBackup), nextCursor: rows.length > page.limit && last ? encodeCursor(last) : null };
  }

  async get(access: WorkspaceAccess, databaseId: string, backupId: string): Promise<Backup> {
    return toBackup(await this.find(access, databaseId, backupId));
  }

  /** A manual backup: pending at once, made by the `backup.run` job. */
  async create(access: WorkspaceAccess, databaseId: string): Promise<Backup> {
    const scope = { workspaceId: access.workspace.id, databaseId };
    const db = await this.deps.databases.find(scope);
    if (!db) throw notFoundDatabase();
    if (db.status === 'deleting') throw new AppError('invalid_state', 'The database is being deleted');
    if (BUSY.includes(db.status)) throw new AppError('database_busy', `The database is ${db.status}${db.statusMessage ? ` (${db.statusMessage})` : ''}: back it up once that is done`);
    if (db.status !== 'running') throw new AppError('invalid_state', `The database is ${db.status}: start it before backing it up`);
    const running = await this.deps.backups.active(scope);
    if (running) throw new AppError('database_busy', `A ${running.kind.replace('_', '-')} backup of this database is ${running.status} (${running.id}): wait until it is done`);
    const now = this.deps.clock();
    const last = await this.deps.backups.lastManual(scope);
    if (last && now.getTime() - last.createdAt.getTime() < MANUAL_BACKUP_INTERVAL_MS) {
      const retryAfter = Math.max(1, Math.ceil((last.createdAt.getTime() + MANUAL_BACKUP_INTERVAL_MS - now.getTime()) / 1000));
      throw new AppError(
        'backup_rate_limited',
        `A manual backup of this database was made at ${last.createdAt.toISOString()}: one an hour; try again in ${Math.ceil(retryAfter / 60)} minutes`,
        undefined,
        retryAfter,
      );
    }
    const b = await this.deps.backups.create(newBackup(uuidv7(now.getTime()), db, 'manual', now, this.settings));
    await this.deps.jobs.enqueue(BACKUP_RUN_JOB, { backupId: b.id }, { jobId: b.id });
    return toBackup(b);
  }

  /** Hidden at once; the file goes now when the server answers, else with the next prune. */
  async remove(access: WorkspaceAccess, databaseId: string, backupId: string): Promise<void> {
    const b = await this.find(access, databaseId, backupId);
    if (b.status === 'pending' || b.status === 'running') throw new AppError('database_busy', 'The backup is still being made: delete it once it completed or failed');
    await this.deps.backups.markDeleted({ workspaceId: access.workspace.id, databaseId, backupId }, this.deps.clock());
    const node = b.nodeId ? await this.deps.nodes.get(b.nodeId) : null;
    if (node && this.deps.agents) {
      await this.deps.agents.deleteBackup({ name: node.name, grpcAddress: node.grpcAddress }, { databaseId, backupId }).catch((err: unknown) => {
        this.deps.logger.warn({ backupId, err: (err as Error).message }, 'backup file not removed now; the prune job will');
      });
    }
  }

  /** The file's bytes from the database's server, with its name, size and SHA-256. */
  async download(access: WorkspaceAccess, databaseId: string, backupId: string): Promise<{ name: string; sizeBytes: number; sha256: string; stream: NodeJS.ReadableStream }> {
    const b = await this.find(access, databaseId, backupId);
    if (b.status !== 'completed' || !b.sha256) throw new AppError('invalid_state', `The backup is ${b.status}: only a completed backup can be downloaded`);
    if (!this.deps.agents) throw new AppError('node_unavailable', 'This API was started without a connection to the agents');
    if (b.path === null) {
      throw new AppError('invalid_state', 'This backup is kept only at its backup destination (no copy on the server): restore it (target "new"), or fetch the object from the bucket (it is encrypted with the workspace backup key)');
    }
    const node = b.nodeId ? await this.deps.nodes.get(b.nodeId) : null;
    if (!node) throw new AppError('node_unavailable', 'The server holding the backup is gone');
    const file = await this.deps.agents.readBackup({ name: node.name, grpcAddress: node.grpcAddress }, { databaseId, backupId });
    if (file.sha256 !== b.sha256) throw new AppError('invalid_state', 'The backup file on the server does not match its recorded checksum');
    const ext = file.name.slice(file.name.lastIndexOf('.'));
    return { name: `${safeName(b.sourceName)}-${b.kind}-${b.createdAt.toISOString().slice(0, 16).replace(/[:T]/g, '')}${ext}`, sizeBytes: file.sizeBytes, sha256: b.sha256, stream: file.stream };
  }

  async restore(access: WorkspaceAccess, databaseId: string, backupId: string, target: 'new' | 'same'): Promise<RestoreResult> {
    const b = await this.find(access, databaseId, backupId);
    if (b.status !== 'completed' || !b.sha256) throw new AppError('invalid_state', `The backup is ${b.status}: only a completed backup can be restored`);
    const now = this.deps.clock();
    const restoreId = uuidv7(now.getTime());
    if (target === 'new') {
      const created = await this.deps.databaseService.create(access, {
        name: `${b.sourceName.slice(0, 40)}-restore-${restoreId.slice(-8)}`,
        engine: b.engine,
        version: b.version,
        cpuMillis: b.cpuMillis,
        memoryMb: b.memoryMb,
        diskMb: b.diskMb,
      });
      await this.deps.jobs.enqueue(BACKUP_RESTORE_JOB, { restoreId, backupId: b.id, databaseId: created.id, target }, { jobId: `restore-${restoreId}` });
      this.deps.logger.info({ backupId: b.id, databaseId: created.id }, 'restore into a new database queued');
      return { ok: true, databaseId: created.id, preRestoreBackupId: null };
    }
    const scope = { workspaceId: access.workspace.id, databaseId };
    const db = await this.deps.databases.find(scope);
    if (!db || db.status === 'deleting') throw new AppError('invalid_state', 'The database was deleted: restore its backup into a new database (target "new")');
    if (BUSY.includes(db.status)) throw new AppError('database_busy', `The database is ${db.status}${db.statusMessage ? ` (${db.statusMessage})` : ''}: restore once that is done`);
    if (db.status !== 'running') throw new AppError('invalid_state', `The database is ${db.status}: start it before restoring into it`);
    const running = await this.deps.backups.active(scope);
    if (running) throw new AppError('database_busy', `A backup of this database is ${running.status} (${running.id}): restore once it is done`);
    const preId = uuidv7(now.getTime());
    if (!(await this.deps.backups.beginRestore(scope, `restoring backup ${b.id}; the current data is saved first in backup ${preId}`))) {
      throw new AppError('database_busy', 'The database is busy with other work: restore once that is done');
    }
    await this.deps.backups.create(newBackup(preId, db, 'pre_restore', now, this.settings));
    await this.deps.jobs.enqueue(BACKUP_RESTORE_JOB, { restoreId, backupId: b.id, databaseId, target, preRestoreBackupId: preId }, { jobId: `restore-${restoreId}` });
    this.deps.logger.info({ backupId: b.id, databaseId, preRestoreBackupId: preId }, 'restore into the same database queued');
    return { ok: true, databaseId, preRestoreBackupId: preId };
  }

  private async find(access: WorkspaceAccess, databaseId: string, backupId: string): Promise<BackupRecord> {
    const b = await this.deps.backups.find({ workspaceId: access.workspace.id, databaseId, backupId });
    if (!b) throw new AppError('not_found', 'The backup was not found');
    return b;
  }
}

export function toBackup(b: BackupRecord): Backup {
  return {
    id: b.id,
    workspaceId: b.workspaceId,
    databaseId: b.databaseId,
    databaseName: b.sourceName,
    engine: b.engine,
    version: b.version,
    kind: b.kind,
    status: b.status,
    error: b.error,
    sizeBytes: b.sizeBytes,
    sha256: b.sha256,
    verification: {
      status: b.verifyStatus ?? 'pending',
      message: b.verifyMessage,
      checkedAt: b.verifiedAt?.toISOString() ?? null,
    },
    createdAt: b.createdAt.toISOString(),
    startedAt: b.startedAt?.toISOString() ?? null,
    completedAt: b.completedAt?.toISOString() ?? null,
    expiresAt: b.expiresAt.toISOString(),
    localCopy: b.path !== null,
    offsite: b.remote ? { destinationId: b.remote.destinationId, key: b.remote.key, sizeBytes: b.remote.sizeBytes, sha256: b.remote.sha256 } : null,
  };
}

const notFoundDatabase = () => new AppError('not_found', 'The database was not found');
const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'backup';

function encodeCursor(b: BackupRecord): string {
  return Buffer.from(`b:${b.createdAt.getTime()}:${b.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const bad = () => new AppError('invalid_cursor', 'The cursor is not one this API gave out');
  if (cursor.length === 0 || cursor.length > CURSOR_MAX || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  const m = /^b:([0-9]{1,15}):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw bad();
  return { createdAt: new Date(Number(m[1])), id: m[2]! };
}
