import type { EnrollmentTokenRepository, NodeEngine, NodeRecord, NodeRepository, NodeStatus, NodeWithUsage } from '@slipway/core';
import type { Db } from '../client';

type NodeRow = Omit<NodeRecord, 'status' | 'disk' | 'databaseEngines'> & {
  status: string;
  diskTotalMb: number | null;
  diskFreeMb: number | null;
  diskReserveMb: number | null;
  databaseEngines: unknown;
  databaseEnginesAt: Date | null;
};
const toRecord = (n: NodeRow): NodeRecord => ({
  id: n.id,
  name: n.name,
  grpcAddress: n.grpcAddress,
  publicIpv4: n.publicIpv4,
  cpuMillis: n.cpuMillis,
  memoryMb: n.memoryMb,
  version: n.version,
  certFingerprint: n.certFingerprint,
  certNotAfter: n.certNotAfter,
  status: n.status === 'online' ? 'online' : 'offline',
  lastSeenAt: n.lastSeenAt,
  disk: n.diskTotalMb !== null && n.diskFreeMb !== null && n.diskReserveMb !== null ? { totalMb: n.diskTotalMb, freeMb: n.diskFreeMb, reserveMb: n.diskReserveMb } : null,
  cordonedAt: n.cordonedAt,
  unreachableSince: n.unreachableSince,
  databaseEngines: Array.isArray(n.databaseEngines) && n.databaseEnginesAt ? { engines: n.databaseEngines as NodeEngine[], at: n.databaseEnginesAt } : null,
  createdAt: n.createdAt,
});

export class PrismaNodeRepository implements NodeRepository {
  constructor(private readonly db: Db) {}

  async list(): Promise<NodeRecord[]> {
    return (await this.db.node.findMany({ orderBy: { name: 'asc' } })).map(toRecord);
  }

  async get(nodeId: string): Promise<NodeRecord | null> {
    const n = await this.db.node.findUnique({ where: { id: nodeId } });
    return n ? toRecord(n) : null;
  }

  async listWithUsage(): Promise<NodeWithUsage[]> {
    const nodes = await this.list();
    // What each node's workspaces reserve (a deleted workspace holds its reservations until teardown purges them).
    const usage = await this.db.$queryRaw<{ node_id: string; cpu: bigint; mem: bigint }[]>`
      SELECT w.node_id, COALESCE(SUM(r.cpu_millis), 0)::bigint AS cpu, COALESCE(SUM(r.memory_mb), 0)::bigint AS mem
      FROM reservations r JOIN workspaces w ON w.id = r.workspace_id
      WHERE w.node_id IS NOT NULL GROUP BY w.node_id`;
    const byNode = new Map(usage.map((u) => [u.node_id, u]));
    // What runs there (issue 31, slipway-admin nodes): live workspaces and their apps, databases and reservations.
    const counts = await this.db.$queryRaw<{ node_id: string; workspaces: bigint; apps: bigint; databases: bigint; reservations: bigint }[]>`
      SELECT w.node_id, COUNT(*)::bigint AS workspaces,
             COALESCE(SUM((SELECT COUNT(*) FROM apps a WHERE a.workspace_id = w.id)), 0)::bigint AS apps,
             COALESCE(SUM((SELECT COUNT(*) FROM databases d WHERE d.workspace_id = w.id AND d.deleted_at IS NULL)), 0)::bigint AS databases,
             COALESCE(SUM((SELECT COUNT(*) FROM reservations r WHERE r.workspace_id = w.id)), 0)::bigint AS reservations
      FROM workspaces w WHERE w.node_id IS NOT NULL AND w.deleted_at IS NULL GROUP BY w.node_id`;
    const placed = new Map(counts.map((c) => [c.node_id, c]));
    return nodes.map((n) => {
      const c = placed.get(n.id);
      return {
        ...n,
        reservedCpuMillis: Number(byNode.get(n.id)?.cpu ?? 0),
        reservedMemoryMb: Number(byNode.get(n.id)?.mem ?? 0),
        placed: { workspaces: Number(c?.workspaces ?? 0), apps: Number(c?.apps ?? 0), databases: Number(c?.databases ?? 0), reservations: Number(c?.reservations ?? 0) },
      };
    });
  }

  async upsertEnrolled(input: Parameters<NodeRepository['upsertEnrolled']>[0]): Promise<NodeRecord> {
    // A server that joins again (new key, new address) keeps its node row and the workspaces on it.
    // It starts offline: the first health check that it answers puts it online.
    const data = { ...input, status: 'offline' };
    return toRecord(await this.db.node.upsert({ where: { name: input.name }, create: data, update: data }));
  }

  async recordReachability(nodeId: string, answered: boolean, at: Date): Promise<void> {
    if (answered) await this.db.node.updateMany({ where: { id: nodeId, NOT: { unreachableSince: null } }, data: { unreachableSince: null } });
    else await this.db.node.updateMany({ where: { id: nodeId, unreachableSince: null }, data: { unreachableSince: at } });
  }

  async setCordoned(name: string, at: Date | null): Promise<NodeRecord | null> {
    const { count } = await this.db.node.updateMany({ where: { name }, data: { cordonedAt: at } });
    if (count === 0) return null;
    return toRecord(await this.db.node.findUniqueOrThrow({ where: { name } }));
  }

  async recordDisk(nodeId: string, disk: { totalMb: number; freeMb: number; reserveMb: number }): Promise<void> {
    await this.db.node.updateMany({ where: { id: nodeId }, data: { diskTotalMb: disk.totalMb, diskFreeMb: disk.freeMb, diskReserveMb: disk.reserveMb } });
  }

  async recordEngines(nodeId: string, engines: NodeEngine[], at: Date): Promise<void> {
    const data = engines.map((e) => ({ engine: e.engine, image: e.image, available: e.available, hint: e.hint }));
    await this.db.node.updateMany({ where: { id: nodeId }, data: { databaseEngines: data, databaseEnginesAt: at } });
  }

  async setStatus(nodeId: string, from: NodeStatus, to: NodeStatus, seenAt: Date | null): Promise<boolean> {
    const { count } = await this.db.node.updateMany({
      where: { id: nodeId, status: from },
      data: { status: to, ...(seenAt ? { lastSeenAt: seenAt } : {}) },
    });
    return count === 1;
  }
}

export class PrismaEnrollmentTokenRepository implements EnrollmentTokenRepository {
  constructor(private readonly db: Db) {}

  async create(input: { tokenHash: Buffer; expiresAt: Date }): Promise<{ id: string }> {
    return this.db.enrollmentToken.create({ data: { tokenHash: new Uint8Array(input.tokenHash), expiresAt: input.expiresAt }, select: { id: true } });
  }

  async isUsable(tokenHash: Buffer, now: Date): Promise<boolean> {
    return (await this.db.enrollmentToken.count({ where: { tokenHash: new Uint8Array(tokenHash), usedAt: null, expiresAt: { gt: now } } })) === 1;
  }

  async consume(tokenHash: Buffer, now: Date): Promise<{ id: string } | null> {
    const rows = await this.db.enrollmentToken.updateManyAndReturn({
      where: { tokenHash: new Uint8Array(tokenHash), usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
      select: { id: true },
    });
    return rows[0] ?? null;
  }

  async linkNode(tokenId: string, nodeId: string): Promise<void> {
    await this.db.enrollmentToken.update({ where: { id: tokenId }, data: { nodeId } });
  }
}
