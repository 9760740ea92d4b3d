import { databaseSources, type DatabaseJobStore, type DatabaseRecord, type DatabaseSettlement } from '@slipway/core';
import type { Db } from '../client';
import { toDatabaseRecord } from '../repositories/database-rows';

/** Databases, job side: keyed by the database id a job holds (deleted rows, and rows of deleted workspaces, included). */
export class PrismaDatabaseJobStore implements DatabaseJobStore {
  constructor(private readonly db: Db) {}

  async getById(databaseId: string): Promise<(DatabaseRecord & { workspaceDeleted: boolean }) | null> {
    const found = await this.db.database.findUnique({ where: { id: databaseId }, include: { workspace: { select: { deletedAt: true } } } });
    if (!found) return null;
    const { workspace, ...d } = found;
    return { ...toDatabaseRecord(d), workspaceDeleted: workspace.deletedAt !== null };
  }

  async listOnNode(nodeId: string): Promise<DatabaseRecord[]> {
    const rows = await this.db.database.findMany({
      where: { deletedAt: null, status: { not: 'deleting' }, workspace: { nodeId, deletedAt: null } },
      orderBy: { id: 'asc' },
    });
    return rows.map(toDatabaseRecord);
  }

  async listOfWorkspace(workspaceId: string): Promise<DatabaseRecord[]> {
    return (await this.db.database.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } })).map(toDatabaseRecord);
  }

  async settle(databaseId: string, generation: number, s: DatabaseSettlement): Promise<boolean> {
    const { count } = await this.db.database.updateMany(settlementOf(databaseId, generation, s));
    return count > 0;
  }

  async setPassword(databaseId: string, passwordSealed: string, settle?: { generation: number; settlement: DatabaseSettlement }): Promise<void> {
    await this.db.$transaction([
      this.db.database.updateMany({ where: { id: databaseId }, data: { passwordSealed } }),
      ...(settle ? [this.db.database.updateMany(settlementOf(databaseId, settle.generation, settle.settlement))] : []),
    ]);
  }

  async purge(databaseId: string): Promise<void> {
    await this.db.database.deleteMany({ where: { id: databaseId } });
  }

  async nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string; publicIpv4: string[] } | null> {
    const w = await this.db.workspace.findUnique({ where: { id: workspaceId }, select: { node: { select: { id: true, name: true, grpcAddress: true, publicIpv4: true } } } });
    return w?.node ?? null;
  }
}

/** The conditional update of a settlement: only while the row's generation is the one the work read. */
function settlementOf(databaseId: string, generation: number, s: DatabaseSettlement) {
  return {
    // The state table says from where the settlement's status may be written (never from deleting).
    where: { id: databaseId, generation, status: { in: databaseSources(s.status) } },
    data: {
      status: s.status,
      statusMessage: s.statusMessage,
      ...(s.runningSince !== undefined ? { runningSince: s.runningSince } : {}),
      ...(s.applied ? { appliedCpuMillis: s.applied.cpuMillis, appliedMemoryMb: s.applied.memoryMb } : {}),
    },
  };
}
