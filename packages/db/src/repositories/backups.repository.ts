import type { BackupRecord, BackupRepository, BackupScope, NewBackup } from '@slipway/core';
import type { Db } from '../client';
import { insertBackup } from '../status/backup-status';
import { moveDatabaseStatus } from '../status/database-status';
import { toBackupRecord } from './backup-rows';

/** Database backups, request side (issue 13): every method is scoped by the workspace; deleted backups are hidden. */
export class PrismaBackupRepository implements BackupRepository {
  constructor(private readonly db: Db) {}

  async list(scope: BackupScope, page: { before?: { createdAt: Date; id: string }; limit: number }): Promise<BackupRecord[]> {
    const before = page.before;
    const rows = await this.db.databaseBackup.findMany({
      where: {
        workspaceId: scope.workspaceId,
        databaseId: scope.databaseId,
        deletedAt: null,
        ...(before ? { OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: page.limit,
    });
    return rows.map(toBackupRecord);
  }

  async find(scope: BackupScope & { backupId: string }): Promise<BackupRecord | null> {
    const b = await this.db.databaseBackup.findFirst({ where: { id: scope.backupId, workspaceId: scope.workspaceId, databaseId: scope.databaseId, deletedAt: null } });
    return b ? toBackupRecord(b) : null;
  }

  async lastManual(scope: BackupScope): Promise<BackupRecord | null> {
    const b = await this.db.databaseBackup.findFirst({
      where: { workspaceId: scope.workspaceId, databaseId: scope.databaseId, kind: 'manual', status: { not: 'failed' } },
      orderBy: { createdAt: 'desc' },
    });
    return b ? toBackupRecord(b) : null;
  }

  async active(scope: BackupScope): Promise<BackupRecord | null> {
    const b = await this.db.databaseBackup.findFirst({
      // A pending backup with an error waits for its next try after a failure (a nightly one within its window, up to
      // half an hour; issue 33): it is not at work, so it does not hold back a manual backup or a restore meanwhile
      // (the database's lock still keeps two dumps apart).
      where: { workspaceId: scope.workspaceId, databaseId: scope.databaseId, OR: [{ status: 'running' }, { status: 'pending', error: null }], deletedAt: null },
      orderBy: { createdAt: 'desc' },
    });
    return b ? toBackupRecord(b) : null;
  }

  async create(b: NewBackup): Promise<BackupRecord> {
    return toBackupRecord(await insertBackup(this.db, b));
  }

  async markDeleted(scope: BackupScope & { backupId: string }, now: Date): Promise<boolean> {
    const { count } = await this.db.databaseBackup.updateMany({
      where: { id: scope.backupId, workspaceId: scope.workspaceId, databaseId: scope.databaseId, deletedAt: null },
      data: { deletedAt: now },
    });
    return count > 0;
  }

  async beginRestore(scope: BackupScope, message: string): Promise<boolean> {
    return moveDatabaseStatus(
      this.db,
      { id: scope.databaseId, workspaceId: scope.workspaceId, deletedAt: null, desiredState: 'running' },
      { from: ['running'], to: 'restoring', message },
    );
  }
}
