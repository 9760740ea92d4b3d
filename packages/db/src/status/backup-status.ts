// The one writer of a backup row's status (issue 27): `status` of the `database_backups` table is written here and
// nowhere else in packages/db (status-writers.spec.ts fails otherwise), always as the backups' state table's
// conditional move (`UPDATE … WHERE status IN (sources)`): a job's claim, release, completion and failure.
import { backupSources, type BackupStatus, type NewBackup } from '@slipway/core';
import type { Db } from '../client';
import type { DatabaseBackup as BackupRow, Prisma } from '../generated/client';

type Client = Db | Prisma.TransactionClient;

export interface BackupStatusMove {
  to: BackupStatus;
  /** What the caller allows, narrowed to what the state table allows (default: every source the table lists). */
  from?: readonly BackupStatus[];
  /** Other columns written in the same statement (the error, the file, the times). */
  with?: Omit<Prisma.DatabaseBackupUncheckedUpdateManyInput, 'status' | 'id'>;
}

/** Moves the backup `backupId` to `move.to`, only from a status the state table (and the caller) allows; true when it moved. */
export async function moveBackupStatus(db: Client, backupId: string, move: BackupStatusMove): Promise<boolean> {
  const sources = move.from ? backupSources(move.to).filter((s) => move.from!.includes(s)) : backupSources(move.to);
  if (!sources.length) return false;
  const { count } = await db.databaseBackup.updateMany({ where: { id: backupId, status: { in: sources } }, data: { ...move.with, status: move.to } });
  return count > 0;
}

/** A new backup row: `pending`, or `failed` with its reason when it was refused before it ran (a skipped night). */
export function insertBackup(db: Client, b: NewBackup): Promise<BackupRow> {
  return db.databaseBackup.create({
    data: {
      id: b.id,
      workspaceId: b.workspaceId,
      databaseId: b.databaseId,
      nodeId: b.nodeId,
      sourceName: b.sourceName,
      engine: b.engine,
      version: b.version,
      cpuMillis: b.cpuMillis,
      memoryMb: b.memoryMb,
      diskMb: b.diskMb,
      kind: b.kind,
      status: b.status ?? 'pending',
      error: b.error ?? null,
      night: b.night ?? null,
      expiresAt: b.expiresAt,
      createdAt: b.createdAt,
      ...(b.status === 'failed' ? { completedAt: b.createdAt } : {}),
    },
  });
}
