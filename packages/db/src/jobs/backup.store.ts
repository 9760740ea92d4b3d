import type { BackupDestinationJobStore, BackupDestinationRecord, BackupJobStore, BackupOutcome, BackupRecord, BackupSource, DatabaseEngine, DatabaseStatus, NewBackup } from '@slipway/core';
import type { Db } from '../client';
import { toBackupRecord } from '../repositories/backup-rows';
import { isUniqueViolation } from '../repositories/errors';
import { insertBackup, moveBackupStatus } from '../status/backup-status';
import { moveDatabaseStatus } from '../status/database-status';

/** Database backups, job side (issue 13): keyed by the backup id a job holds; deleted rows included. */
export class PrismaBackupJobStore implements BackupJobStore {
  constructor(private readonly db: Db) {}

  async get(backupId: string): Promise<BackupRecord | null> {
    const b = await this.db.databaseBackup.findUnique({ where: { id: backupId } });
    return b ? toBackupRecord(b) : null;
  }

  async create(b: NewBackup): Promise<BackupRecord | 'exists'> {
    try {
      return toBackupRecord(await insertBackup(this.db, b));
    } catch (e) {
      if (isUniqueViolation(e)) return 'exists';
      throw e;
    }
  }

  async claim(backupId: string, now: Date): Promise<boolean> {
    return moveBackupStatus(this.db, backupId, { from: ['pending'], to: 'running', with: { startedAt: now, error: null } });
  }

  async release(backupId: string, error: string): Promise<void> {
    await moveBackupStatus(this.db, backupId, { to: 'pending', with: { error } });
  }

  async complete(backupId: string, file: BackupOutcome, now: Date): Promise<void> {
    await moveBackupStatus(this.db, backupId, {
      to: 'completed',
      with: {
        sizeBytes: BigInt(file.sizeBytes),
        sha256: file.sha256,
        path: file.path,
        format: file.format,
        completedAt: now,
        error: null,
        destinationId: file.remote?.destinationId ?? null,
        remoteKey: file.remote?.key ?? null,
        remoteSizeBytes: file.remote ? BigInt(file.remote.sizeBytes) : null,
        remoteSha256: file.remote?.sha256 ?? null,
      },
    });
  }

  async fail(backupId: string, error: string, now: Date): Promise<void> {
    await moveBackupStatus(this.db, backupId, { to: 'failed', with: { error, completedAt: now } });
  }

  async setVerification(backupId: string, v: { status: 'passed' | 'failed'; message: string }, now: Date): Promise<void> {
    await this.db.databaseBackup.updateMany({ where: { id: backupId }, data: { verifyStatus: v.status, verifyMessage: v.message.slice(0, 2000), verifiedAt: now } });
  }

  async schedulable(): Promise<BackupSource[]> {
    const rows = await this.db.database.findMany({
      where: { deletedAt: null, status: { not: 'deleting' }, workspace: { deletedAt: null } },
      select: { id: true, workspaceId: true, nodeId: true, name: true, engine: true, version: true, cpuMillis: true, memoryMb: true, diskMb: true, status: true, desiredState: true },
      orderBy: { id: 'asc' },
    });
    return rows.map((r) => ({ ...r, engine: r.engine as DatabaseEngine }));
  }

  async scheduledNights(nights: string[]): Promise<Set<string>> {
    if (!nights.length) return new Set();
    const rows = await this.db.databaseBackup.findMany({ where: { kind: 'scheduled', night: { in: nights } }, select: { databaseId: true, night: true } });
    return new Set(rows.map((r) => `${r.databaseId}|${r.night}`));
  }

  async expired(now: Date, limit: number): Promise<BackupRecord[]> {
    const deletedWorkspaces = (await this.db.workspace.findMany({ where: { deletedAt: { not: null } }, select: { id: true } })).map((w) => w.id);
    const rows = await this.db.databaseBackup.findMany({
      where: {
        status: { notIn: ['pending', 'running'] },
        OR: [{ expiresAt: { lte: now } }, { deletedAt: { not: null } }, ...(deletedWorkspaces.length ? [{ workspaceId: { in: deletedWorkspaces } }] : [])],
      },
      orderBy: { expiresAt: 'asc' },
      take: limit,
    });
    return rows.map(toBackupRecord);
  }

  async remove(backupId: string): Promise<void> {
    await this.db.databaseBackup.deleteMany({ where: { id: backupId } });
  }

  async setDatabaseStatus(databaseId: string, from: readonly string[], status: string, message: string | null): Promise<boolean> {
    // What the caller allows, narrowed to what the databases' state table allows.
    return moveDatabaseStatus(
      this.db,
      { id: databaseId, deletedAt: null },
      { from: from as DatabaseStatus[], to: status as DatabaseStatus, message, ...(status === 'running' ? { runningSince: new Date() } : {}) },
    );
  }

  async node(nodeId: string): Promise<{ id: string; name: string; grpcAddress: string } | null> {
    return this.db.node.findUnique({ where: { id: nodeId }, select: { id: true, name: true, grpcAddress: true } });
  }

  async localCopiesBeyond(keep: number, limit: number): Promise<BackupRecord[]> {
    // Per database, its completed off-server backups that still have a file here, newest first; those past `keep`.
    const ids = await this.db.$queryRaw<{ id: string }[]>`
      SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY database_id ORDER BY created_at DESC, id DESC) AS n
        FROM database_backups
        WHERE status = 'completed' AND remote_key IS NOT NULL AND path IS NOT NULL AND deleted_at IS NULL
      ) ranked WHERE n > ${keep} LIMIT ${limit}`;
    if (!ids.length) return [];
    const rows = await this.db.databaseBackup.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
    return rows.map(toBackupRecord);
  }

  async dropLocalCopy(backupId: string): Promise<void> {
    await this.db.databaseBackup.updateMany({ where: { id: backupId }, data: { path: null } });
  }

  async failures(limit: number): Promise<BackupRecord[]> {
    const rows = await this.db.databaseBackup.findMany({
      // Failed backups, failed checks, and backups waiting for another try after one failed (a nightly one tried again
      // within its window, issue 33): the operator sees a destination that refuses before the night's tries are spent.
      where: { deletedAt: null, OR: [{ status: 'failed' }, { verifyStatus: 'failed' }, { status: 'pending', error: { not: null } }] },
      orderBy: { createdAt: 'desc' },
      take: limit,
    });
    return rows.map(toBackupRecord);
  }
}

/** Where a database's backups go (issue 33), job side: the destination it names, else its workspace's default. */
export class PrismaBackupDestinationJobStore implements BackupDestinationJobStore {
  constructor(private readonly db: Db) {}

  async forDatabase(databaseId: string): Promise<BackupDestinationRecord | null> {
    const database = await this.db.database.findUnique({ where: { id: databaseId }, select: { workspaceId: true, backupDestination: true } });
    if (!database) return null;
    return database.backupDestination ?? (await this.db.backupDestination.findFirst({ where: { workspaceId: database.workspaceId, isDefault: true } }));
  }

  get(destinationId: string): Promise<BackupDestinationRecord | null> {
    return this.db.backupDestination.findUnique({ where: { id: destinationId } });
  }
}
