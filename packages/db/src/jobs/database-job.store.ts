import type { DatabaseJobStore, DatabaseRecord, DatabaseSettlement } from '@slipway/core';
import type { Db } from '../client';
import { toDatabaseRecord } from '../repositories/database-rows';
import { moveDatabaseStatus } from '../status/database-status';

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
    return settle(this.db, databaseId, generation, s);
  }

  async setPassword(databaseId: string, passwordSealed: string, settlement?: { generation: number; settlement: DatabaseSettlement }): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.database.updateMany({ where: { id: databaseId }, data: { passwordSealed } });
      if (settlement) await settle(tx, databaseId, settlement.generation, settlement.settlement);
    });
  }

  async purge(databaseId: string): Promise<void> {
    await this.db.database.deleteMany({ where: { id: databaseId } });
  }

  async nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string; publicIpv4: string[] } | null> {
    const w = await this.db.workspace.findUnique({ where: { id: workspaceId }, select: { node: { select: { id: true, name: true, grpcAddress: true, publicIpv4: true } } } });
    return w?.node ?? null;
  }
}

/** A settlement: only while the row's generation is the one the work read, from a status the state table allows. */
function settle(db: Parameters<typeof moveDatabaseStatus>[0], databaseId: string, generation: number, s: DatabaseSettlement): Promise<boolean> {
  return moveDatabaseStatus(
    db,
    { id: databaseId, generation },
    {
      to: s.status,
      message: s.statusMessage,
      ...(s.runningSince !== undefined ? { runningSince: s.runningSince } : {}),
      ...(s.applied ? { with: { appliedCpuMillis: s.applied.cpuMillis, appliedMemoryMb: s.applied.memoryMb } } : {}),
    },
  );
}
