import type { AppChanges, AppIntent, AppRecord, AppRepository, AppScope, AppStateChange, AppWithDeployment, NewApp, NodeRecord } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import { appStateData, isUniqueViolation, readAppsWithCurrent, toAppRecord, toDeploymentRecord, withDeployments } from './app-rows';
import { readThrough, type ReadCache } from '../read-cache';
import type { SqlPool } from '../sql-pool';

/** Apps, request side: every method is scoped by the workspace. Deleted apps keep their row with `deletedAt`. */
export class PrismaAppRepository implements AppRepository {
  constructor(
    private readonly db: Db,
    /** The reads' one prepared statement (app and current deployment together); without it, two Prisma queries. */
    private readonly sql?: SqlPool,
    /** The API's reads from memory: an app and a workspace's apps, dropped when a row of the workspace's apps or deployments changes. */
    private readonly reads?: ReadCache,
  ) {}

  async findApp(scope: AppScope): Promise<AppWithDeployment | null> {
    const sql = this.sql;
    if (sql) {
      return readThrough(this.reads, `app:${scope.workspaceId}:${scope.appId}`, Date.now(), async () => {
        const found = (await readAppsWithCurrent(sql, scope))[0];
        return found ? { value: found, tags: [`ws:${scope.workspaceId}`] } : null;
      });
    }
    const a = await this.db.app.findFirst({ where: { id: scope.appId, workspaceId: scope.workspaceId, deletedAt: null } });
    return a ? (await withDeployments(this.db, [a]))[0]! : null;
  }

  async listApps(scope: { workspaceId: string }): Promise<AppWithDeployment[]> {
    const sql = this.sql;
    if (sql) {
      const apps = await readThrough(this.reads, `apps:${scope.workspaceId}`, Date.now(), async () => ({
        value: await readAppsWithCurrent(sql, { workspaceId: scope.workspaceId }),
        tags: [`ws:${scope.workspaceId}`],
      }));
      return apps ?? [];
    }
    return withDeployments(this.db, await this.db.app.findMany({ where: { workspaceId: scope.workspaceId, deletedAt: null }, orderBy: { id: 'asc' } }));
  }

  async createApp(app: NewApp): Promise<AppWithDeployment | 'name_taken' | 'subdomain_taken'> {
    try {
      const row = await this.db.app.create({ data: { ...app, github: app.github === null ? Prisma.DbNull : (app.github as Prisma.InputJsonValue) } });
      return { ...toAppRecord(row), currentDeployment: null };
    } catch (e) {
      if (isUniqueViolation(e)) return this.whichTaken({ workspaceId: app.workspaceId, slug: app.slug }, null);
      throw e;
    }
  }

  /** Which unique index refused a row: the workspace's slug (a name the user chose) or the platform's subdomain. */
  private async whichTaken(scope: { workspaceId: string; slug: string }, exceptAppId: string | null): Promise<'name_taken' | 'subdomain_taken'> {
    const same = await this.db.app.count({ where: { workspaceId: scope.workspaceId, slug: scope.slug, deletedAt: null, ...(exceptAppId ? { id: { not: exceptAppId } } : {}) } });
    return same > 0 ? 'name_taken' : 'subdomain_taken';
  }

  async updateApp(scope: AppScope, changes: AppChanges): Promise<AppWithDeployment | 'name_taken' | 'subdomain_taken' | null> {
    try {
      const { github, ...rest } = changes;
      const data = github === undefined ? rest : { ...rest, github: github === null ? Prisma.DbNull : (github as Prisma.InputJsonValue) };
      const { count } = await this.db.app.updateMany({ where: { id: scope.appId, workspaceId: scope.workspaceId, deletedAt: null }, data });
      if (count === 0) return null;
    } catch (e) {
      if (isUniqueViolation(e)) return changes.slug ? this.whichTaken({ workspaceId: scope.workspaceId, slug: changes.slug }, scope.appId) : 'subdomain_taken';
      throw e;
    }
    return this.findApp(scope);
  }

  async markDeleted(scope: AppScope, now: Date): Promise<AppRecord | null> {
    // The slug and subdomain are freed for new apps: the deleted row keeps its id-suffixed slug only.
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE apps SET deleted_at = ${now}, subdomain = NULL, slug = slug || '~' || id::text, desired_state = 'stopped', generation = generation + 1, updated_at = ${now}
      WHERE id = ${scope.appId}::uuid AND workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL
      RETURNING id`;
    if (!rows[0]) return null;
    const a = await this.db.app.findUnique({ where: { id: scope.appId } });
    return a ? toAppRecord(a) : null;
  }

  async setState(scope: AppScope, state: AppStateChange): Promise<void> {
    await this.db.app.updateMany({ where: { id: scope.appId, workspaceId: scope.workspaceId }, data: appStateData(state) });
  }

  async recordIntent(scope: AppScope, intent: AppIntent): Promise<{ app: AppWithDeployment; operationId: string | null } | null> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ generation: number }[]>`
        UPDATE apps SET generation = generation + 1, desired_state = ${intent.desiredState}, updated_at = now()
        WHERE id = ${scope.appId}::uuid AND workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL
        RETURNING generation`;
      if (!row) return null;
      // Read in the transaction, under the row lock the update took: the app as this intent left it.
      const a = await tx.app.findUniqueOrThrow({ where: { id: scope.appId } });
      const d = a.currentDeploymentId ? await tx.deployment.findUnique({ where: { id: a.currentDeploymentId } }) : null;
      const app = { ...toAppRecord(a), currentDeployment: d ? toDeploymentRecord(d) : null };
      if (!intent.operation) return { app, operationId: null };
      const { kind, nodeId, payload } = intent.operation;
      const op = await tx.operation.create({
        data: { kind, nodeId, workspaceId: scope.workspaceId, payload: { ...payload, generation: row.generation } as Prisma.InputJsonValue },
        select: { id: true },
      });
      return { app, operationId: op.id };
    });
  }

  async nodeOf(scope: { workspaceId: string }): Promise<{ id: string; name: string; grpcAddress: string; disk: NodeRecord['disk'] } | null> {
    const w = await this.db.workspace.findUnique({
      where: { id: scope.workspaceId },
      select: { node: { select: { id: true, name: true, grpcAddress: true, diskTotalMb: true, diskFreeMb: true, diskReserveMb: true } } },
    });
    if (!w?.node) return null;
    const { diskTotalMb, diskFreeMb, diskReserveMb, ...node } = w.node;
    const disk = diskTotalMb !== null && diskFreeMb !== null && diskReserveMb !== null ? { totalMb: diskTotalMb, freeMb: diskFreeMb, reserveMb: diskReserveMb } : null;
    return { ...node, disk };
  }
}
