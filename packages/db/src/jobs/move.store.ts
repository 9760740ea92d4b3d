import type { AppToMove, MoveRecord, MoveState, MoveStepRecord, MoveStore, MoveWorkspace, MoveWorkspaceStore, NewMove, SwitchedApp, SwitchedDatabase } from '@slipway/core';
import type { Db } from '../client';
import { isUniqueViolation } from '../repositories/errors';
import type { Move as MoveRow, Prisma } from '../generated/client';

const toMove = (r: MoveRow): MoveRecord => ({
  id: r.id,
  workspaceId: r.workspaceId,
  workspaceSlug: r.workspaceSlug,
  fromNodeId: r.fromNodeId,
  fromNode: r.fromNode,
  toNodeId: r.toNodeId,
  toNode: r.toNode,
  state: r.state as MoveState,
  reason: r.reason === 'drain' ? 'drain' : 'operator',
  steps: (Array.isArray(r.steps) ? r.steps : []) as unknown as MoveStepRecord[],
  error: r.error,
  attempts: r.attempts,
  cancelRequestedAt: r.cancelRequestedAt,
  createdAt: r.createdAt,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
});

const UNFINISHED = ['queued', 'running'];

/** Moves of workspaces between servers (issue 32): the `moves` rows, their conditional state changes and step records. */
export class PrismaMoveStore implements MoveStore {
  constructor(private readonly db: Db) {}

  async create(input: NewMove, at: Date): Promise<MoveRecord> {
    return toMove(await this.db.move.create({ data: { ...input, createdAt: at } }));
  }

  async get(moveId: string): Promise<MoveRecord | null> {
    const row = await this.db.move.findUnique({ where: { id: moveId } });
    return row ? toMove(row) : null;
  }

  async list(filter: { limit: number; workspaceId?: string; unfinished?: boolean }): Promise<MoveRecord[]> {
    const rows = await this.db.move.findMany({
      where: { ...(filter.workspaceId ? { workspaceId: filter.workspaceId } : {}), ...(filter.unfinished ? { state: { in: UNFINISHED } } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: filter.limit,
    });
    return rows.map(toMove);
  }

  async transition(
    moveId: string,
    from: readonly MoveState[],
    to: MoveState,
    patch: { error?: string | null; startedAt?: Date; finishedAt?: Date; countAttempt?: boolean } = {},
  ): Promise<MoveRecord | null> {
    const data: Prisma.MoveUpdateManyMutationInput = {
      state: to,
      ...(patch.error !== undefined ? { error: patch.error } : {}),
      ...(patch.startedAt ? { startedAt: patch.startedAt } : {}),
      ...(patch.finishedAt ? { finishedAt: patch.finishedAt } : {}),
      ...(patch.countAttempt ? { attempts: { increment: 1 } } : {}),
    };
    const { count } = await this.db.move.updateMany({ where: { id: moveId, state: { in: [...from] } }, data });
    return count === 1 ? this.get(moveId) : null;
  }

  async appendStep(moveId: string, step: MoveStepRecord): Promise<void> {
    // One statement: the record grows by one element whatever else changed on the row.
    await this.db.$executeRaw`UPDATE moves SET steps = steps || ${JSON.stringify([step])}::jsonb WHERE id = ${moveId}::uuid`;
  }

  async requestCancel(moveId: string, at: Date): Promise<MoveRecord | null> {
    const { count } = await this.db.move.updateMany({ where: { id: moveId, state: { in: UNFINISHED }, cancelRequestedAt: null }, data: { cancelRequestedAt: at } });
    if (count === 1) return this.get(moveId);
    const row = await this.get(moveId);
    return row && UNFINISHED.includes(row.state) ? row : null;
  }

  async nextOfDrain(fromNodeId: string): Promise<MoveRecord | null> {
    const row = await this.db.move.findFirst({ where: { fromNodeId, reason: 'drain', state: 'queued' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return row ? toMove(row) : null;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a move reads and writes of a workspace: its server, what it holds, and the one conditional switch. */
export class PrismaMoveWorkspaceStore implements MoveWorkspaceStore {
  constructor(private readonly db: Db) {}

  async find(ref: string): Promise<MoveWorkspace | null> {
    const rows = await this.rows(UUID.test(ref) ? { id: ref } : { slug: ref });
    return rows[0] ?? null;
  }

  onNode(nodeId: string): Promise<MoveWorkspace[]> {
    return this.rows({ nodeId });
  }

  private async rows(where: { id: string } | { slug: string } | { nodeId: string }): Promise<MoveWorkspace[]> {
    const workspaces = await this.db.workspace.findMany({
      where: { ...where, deletedAt: null },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: {
        id: true,
        slug: true,
        nodeId: true,
        plan: { select: { minimums: true } },
        reservations: { select: { cpuMillis: true, memoryMb: true, diskMb: true } },
        _count: { select: { apps: { where: { deletedAt: null } }, databases: { where: { deletedAt: null } } } },
      },
    });
    return workspaces.map((w) => {
      // As placement counts a workspace: what it reserves, and at least its plan's first app.
      const first = ((w.plan.minimums as { app?: { cpuMillis?: number; memoryMb?: number; diskMb?: number } } | null)?.app ?? {}) as { cpuMillis?: number; memoryMb?: number; diskMb?: number };
      const sum = (k: 'cpuMillis' | 'memoryMb' | 'diskMb') => w.reservations.reduce((t, r) => t + r[k], 0);
      return {
        id: w.id,
        slug: w.slug,
        nodeId: w.nodeId,
        apps: w._count.apps,
        databases: w._count.databases,
        reserved: {
          cpuMillis: Math.max(sum('cpuMillis'), first.cpuMillis ?? 0),
          memoryMb: Math.max(sum('memoryMb'), first.memoryMb ?? 0),
          diskMb: Math.max(sum('diskMb'), first.diskMb ?? 0),
        },
      };
    });
  }

  appsToMove(workspaceId: string): Promise<AppToMove[]> {
    return appsToMoveIn(this.db, workspaceId);
  }

  async switchServer(workspaceId: string, from: string, to: string, apps: SwitchedApp[], databases: SwitchedDatabase[], event: string): Promise<boolean> {
    try {
      return await this.db.$transaction(async (tx) => {
        // The workspace's row is locked: a second switch, a deletion or a new app waits for this transaction.
        const rows = await tx.$queryRaw<{ node_id: string | null; deleted_at: Date | null }[]>`
          SELECT node_id, deleted_at FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
        const row = rows[0];
        if (!row || row.deleted_at || row.node_id !== from) return false;
        const liveDatabases = (await tx.database.findMany({ where: { workspaceId, deletedAt: null }, select: { id: true } })).map((d) => d.id).sort();
        if (liveDatabases.join() !== databases.map((d) => d.databaseId).sort().join()) return false;
        const now = await appsToMoveIn(tx, workspaceId);
        const key = (a: { appId: string; deploymentId: string | null }) => `${a.appId}:${a.deploymentId ?? '-'}`;
        if (now.some((a) => a.busy) || now.map(key).sort().join() !== apps.map(key).sort().join()) return false;
        await tx.workspace.update({ where: { id: workspaceId }, data: { nodeId: to } });
        for (const a of apps) {
          if (a.deploymentId) await tx.deployment.update({ where: { id: a.deploymentId }, data: { containerId: a.containerId, hostPort: a.hostPort } });
        }
        // Only the server and the public port: a database's status has one writer (packages/db/src/status).
        for (const d of databases) await tx.database.update({ where: { id: d.databaseId }, data: { nodeId: to, publicPort: d.publicPort } });
        // The backup files moved with their databases (deleted databases' ones too).
        await tx.databaseBackup.updateMany({ where: { workspaceId, nodeId: from }, data: { nodeId: to } });
        // Owners see the move on each app and database, from the moment it is true.
        const resources = [...apps.map((a) => ({ resourceKind: 'app', resourceId: a.appId })), ...databases.map((d) => ({ resourceKind: 'database', resourceId: d.databaseId }))];
        await tx.resourceEvent.createMany({ data: resources.map((r) => ({ workspaceId, ...r, kind: 'moved', message: event })) });
        return true;
      });
    } catch (e) {
      // A public port taken on the target meanwhile (unique per server): nothing was switched.
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  async publicPortsOn(nodeId: string): Promise<number[]> {
    const rows = await this.db.database.findMany({ where: { nodeId, publicPort: { not: null } }, select: { publicPort: true } });
    return rows.map((r) => r.publicPort!);
  }

  async backupFoldersOn(workspaceId: string, nodeId: string): Promise<{ databaseId: string; backups: number }[]> {
    const rows = await this.db.databaseBackup.groupBy({ by: ['databaseId'], where: { workspaceId, nodeId, path: { not: null } }, _count: { _all: true }, orderBy: { databaseId: 'asc' } });
    return rows.map((r) => ({ databaseId: r.databaseId, backups: r._count._all }));
  }

  async appIds(workspaceId: string): Promise<string[]> {
    return (await this.db.app.findMany({ where: { workspaceId }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
  }

  async domainHostnames(workspaceId: string): Promise<string[]> {
    return (await this.db.domain.findMany({ where: { workspaceId }, select: { hostname: true }, orderBy: { hostname: 'asc' } })).map((d) => d.hostname);
  }
}

const IN_USE = ['live', 'crashed'];
const KEPT = ['live', 'crashed', 'superseded'];
const IN_PROGRESS = ['queued', 'building', 'deploying'];

/** The live apps of a workspace as a move carries them (in or out of a transaction). */
async function appsToMoveIn(db: Pick<Db, 'app'>, workspaceId: string): Promise<AppToMove[]> {
  const apps = await db.app.findMany({
    where: { workspaceId, deletedAt: null },
    orderBy: { id: 'asc' },
    select: { id: true, currentDeploymentId: true, deployments: { select: { id: true, status: true, imageRef: true, imageAvailable: true } } },
  });
  return apps.map((a) => {
    const current = a.deployments.find((d) => d.id === a.currentDeploymentId);
    const refs = a.deployments.filter((d) => d.imageRef && d.imageAvailable && KEPT.includes(d.status)).map((d) => d.imageRef!);
    return {
      appId: a.id,
      deploymentId: current && IN_USE.includes(current.status) ? current.id : null,
      imageRefs: [...new Set(refs)].sort(),
      busy: a.deployments.some((d) => IN_PROGRESS.includes(d.status)),
    };
  });
}
