// Rows of database backups as the core's records, shared by the request-side repository and the job-side store.
import type { BackupKind, BackupRecord, BackupStatus, DatabaseEngine } from '@slipway/core';
import type { DatabaseBackup as BackupRow } from '../generated/client';

export const toBackupRecord = (b: BackupRow): BackupRecord => ({
  id: b.id,
  workspaceId: b.workspaceId,
  databaseId: b.databaseId,
  nodeId: b.nodeId,
  sourceName: b.sourceName,
  engine: b.engine as DatabaseEngine,
  version: b.version,
  cpuMillis: b.cpuMillis,
  memoryMb: b.memoryMb,
  diskMb: b.diskMb,
  kind: b.kind as BackupKind,
  status: b.status as BackupStatus,
  error: b.error,
  sizeBytes: b.sizeBytes === null ? null : Number(b.sizeBytes),
  sha256: b.sha256,
  path: b.path,
  format: b.format,
  night: b.night,
  verifyStatus: b.verifyStatus === 'passed' || b.verifyStatus === 'failed' ? b.verifyStatus : null,
  verifyMessage: b.verifyMessage,
  verifiedAt: b.verifiedAt,
  startedAt: b.startedAt,
  completedAt: b.completedAt,
  expiresAt: b.expiresAt,
  deletedAt: b.deletedAt,
  createdAt: b.createdAt,
  remote:
    b.remoteKey !== null && b.remoteSha256 !== null && b.remoteSizeBytes !== null
      ? { destinationId: b.destinationId, key: b.remoteKey, sizeBytes: Number(b.remoteSizeBytes), sha256: b.remoteSha256 }
      : null,
});
