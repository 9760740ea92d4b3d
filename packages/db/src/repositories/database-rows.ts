// Rows of databases as the core's records, shared by the request-side repository and the job-side store.
import type { DatabaseEngine, DatabaseRecord, DatabaseStatus } from '@slipway/core';
import type { Database as DatabaseRow } from '../generated/client';

export const toDatabaseRecord = (d: DatabaseRow): DatabaseRecord => ({
  id: d.id,
  workspaceId: d.workspaceId,
  nodeId: d.nodeId,
  name: d.name,
  slug: d.slug,
  engine: d.engine as DatabaseEngine,
  version: d.version,
  cpuMillis: d.cpuMillis,
  memoryMb: d.memoryMb,
  diskMb: d.diskMb,
  username: d.username,
  databaseName: d.databaseName,
  passwordSealed: d.passwordSealed,
  status: d.status as DatabaseStatus,
  desiredState: d.desiredState === 'stopped' ? 'stopped' : 'running',
  generation: d.generation,
  statusMessage: d.statusMessage,
  publicEnabled: d.publicEnabled,
  publicPort: d.publicPort,
  allowedCidrs: d.allowedCidrs,
  appliedCpuMillis: d.appliedCpuMillis,
  appliedMemoryMb: d.appliedMemoryMb,
  runningSince: d.runningSince,
  deletedAt: d.deletedAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
