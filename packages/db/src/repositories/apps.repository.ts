import type {
  AppStatus,
  DeploymentStatus,
  StatusDetail,
  AppRecord,
  AppRepository,
  AppWithDeployment,
  DeploymentRecord,
  DeploymentRepository,
  EnvRecord,
  EnvRepository,
  LogLineRecord,
  NewApp,
  NewDeployment,
} from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import type { Deployment as DeploymentRow, App as AppRow } from '../generated/client';

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002';

export const toDeploymentRecord = (d: DeploymentRow): DeploymentRecord => ({
  id: d.id,
  workspaceId: d.workspaceId,
  appId: d.appId,
  number: d.number,
  status: d.status as DeploymentStatus,
  source: d.source as DeploymentRecord['source'],
  image: d.image,
  imageId: d.imageId,
  imageRef: d.imageRef,
  commitSha: d.commitSha,
  rollbackOfId: d.rollbackOfId,
  failureReason: d.failureReason,
  imageAvailable: d.imageAvailable,
  containerId: d.containerId,
  hostPort: d.hostPort,
  cpuMillis: d.cpuMillis,
  memoryMb: d.memoryMb,
  port: d.port,
  triggeredBy: d.triggeredById ? { id: d.triggeredById, name: d.triggeredByName } : null,
  createdAt: d.createdAt,
  startedAt: d.startedAt,
  finishedAt: d.finishedAt,
});

const toAppRecord = (a: AppRow): AppRecord => ({
  id: a.id,
  workspaceId: a.workspaceId,
  name: a.name,
  slug: a.slug,
  kind: a.kind as AppRecord['kind'],
  source: a.source as AppRecord['source'],
  image: a.image,
  port: a.port,
  healthPath: a.healthPath,
  cpuMillis: a.cpuMillis,
  memoryMb: a.memoryMb,
  subdomain: a.subdomain,
  github: (a.github as Record<string, unknown> | null) ?? null,
  status: a.status as AppStatus,
  desiredState: a.desiredState as AppRecord['desiredState'],
  statusDetail: (a.statusDetail as StatusDetail) ?? null,
  currentDeploymentId: a.currentDeploymentId,
  runningSince: a.runningSince,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/** Apps with their current deployment, read in two indexed queries (the pointer is not a foreign key). */
async function withDeployments(db: Db, apps: AppRow[]): Promise<AppWithDeployment[]> {
  const ids = apps.map((a) => a.currentDeploymentId).filter((x): x is string => x !== null);
  const rows = ids.length ? await db.deployment.findMany({ where: { id: { in: ids } } }) : [];
  const byId = new Map(rows.map((d) => [d.id, toDeploymentRecord(d)]));
  return apps.map((a) => ({ ...toAppRecord(a), currentDeployment: a.currentDeploymentId ? (byId.get(a.currentDeploymentId) ?? null) : null }));
}

export class PrismaAppRepository implements AppRepository {
  constructor(private readonly db: Db) {}

  async findApp(scope: { workspaceId: string; appId: string }): Promise<AppWithDeployment | null> {
    const a = await this.db.app.findFirst({ where: { id: scope.appId, workspaceId: scope.workspaceId, deletedAt: null } });
    return a ? (await withDeployments(this.db, [a]))[0]! : null;
  }

  async listApps(scope: { workspaceId: string }): Promise<AppWithDeployment[]> {
    return withDeployments(this.db, await this.db.app.findMany({ where: { workspaceId: scope.workspaceId, deletedAt: null }, orderBy: { id: 'asc' } }));
  }

  async createApp(app: NewApp): Promise<AppWithDeployment | 'name_taken'> {
    try {
      const row = await this.db.app.create({ data: { ...app, github: app.github === null ? Prisma.DbNull : (app.github as Prisma.InputJsonValue) } });
      return { ...toAppRecord(row), currentDeployment: null };
    } catch (e) {
      if (isUniqueViolation(e)) return 'name_taken';
      throw e;
    }
  }

  async updateApp(
    scope: { workspaceId: string; appId: string },
    changes: Partial<Pick<AppRecord, 'name' | 'slug' | 'image' | 'port' | 'cpuMillis' | 'memoryMb' | 'subdomain'>>,
  ): Promise<AppWithDeployment | 'name_taken' | null> {
    try {
      const { count } = await this.db.app.updateMany({ where: { id: scope.appId, workspaceId: scope.workspaceId, deletedAt: null }, data: changes });
      if (count === 0) return null;
    } catch (e) {
      if (isUniqueViolation(e)) return 'name_taken';
      throw e;
    }
    return this.findApp(scope);
  }

  async markDeleted(scope: { workspaceId: string; appId: string }, now: Date): Promise<AppRecord | null> {
    // The slug and subdomain are freed for new apps: the deleted row keeps its id-suffixed slug only.
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE apps SET deleted_at = ${now}, subdomain = NULL, slug = slug || '~' || id::text, desired_state = 'stopped', updated_at = ${now}
      WHERE id = ${scope.appId}::uuid AND workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL
      RETURNING id`;
    if (!rows[0]) return null;
    const a = await this.db.app.findUnique({ where: { id: scope.appId } });
    return a ? toAppRecord(a) : null;
  }

  async setState(
    scope: { workspaceId: string; appId: string },
    state: { status?: AppStatus; desiredState?: 'running' | 'stopped'; statusDetail?: StatusDetail; runningSince?: Date | null },
  ): Promise<void> {
    const data: Prisma.AppUpdateManyMutationInput = {};
    if (state.status !== undefined) data.status = state.status;
    if (state.desiredState !== undefined) data.desiredState = state.desiredState;
    if (state.statusDetail !== undefined) data.statusDetail = state.statusDetail === null ? Prisma.DbNull : (state.statusDetail as Prisma.InputJsonValue);
    if (state.runningSince !== undefined) data.runningSince = state.runningSince;
    await this.db.app.updateMany({ where: { id: scope.appId, workspaceId: scope.workspaceId }, data });
  }

  async listOnNode(nodeId: string): Promise<AppWithDeployment[]> {
    return withDeployments(
      this.db,
      await this.db.app.findMany({ where: { deletedAt: null, workspace: { nodeId, deletedAt: null } }, orderBy: { id: 'asc' } }),
    );
  }

  async getById(appId: string): Promise<(AppWithDeployment & { deletedAt: Date | null }) | null> {
    const a = await this.db.app.findUnique({ where: { id: appId } });
    return a ? { ...(await withDeployments(this.db, [a]))[0]!, deletedAt: a.deletedAt } : null;
  }

  async nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string } | null> {
    const w = await this.db.workspace.findUnique({ where: { id: workspaceId }, select: { node: { select: { id: true, name: true, grpcAddress: true } } } });
    return w?.node ?? null;
  }
}

export class PrismaEnvRepository implements EnvRepository {
  constructor(private readonly db: Db) {}

  list(scope: { appId: string }): Promise<EnvRecord[]> {
    return this.db.envVar.findMany({ where: { appId: scope.appId }, orderBy: { key: 'asc' }, select: { key: true, value: true, secret: true, updatedAt: true } });
  }

  async replace(scope: { appId: string }, variables: { key: string; value: string; secret: boolean }[], now: Date): Promise<EnvRecord[]> {
    await this.db.$transaction(async (tx) => {
      const current = new Map((await tx.envVar.findMany({ where: { appId: scope.appId } })).map((v) => [v.key, v]));
      const keys = variables.map((v) => v.key);
      await tx.envVar.deleteMany({ where: { appId: scope.appId, key: { notIn: keys } } });
      for (const v of variables) {
        const before = current.get(v.key);
        if (before && before.value === v.value && before.secret === v.secret) continue;
        await tx.envVar.upsert({
          where: { appId_key: { appId: scope.appId, key: v.key } },
          create: { appId: scope.appId, key: v.key, value: v.value, secret: v.secret, updatedAt: now },
          update: { value: v.value, secret: v.secret, updatedAt: now },
        });
      }
    });
    return this.list(scope);
  }
}

export class PrismaDeploymentRepository implements DeploymentRepository {
  constructor(private readonly db: Db) {}

  async create(input: NewDeployment): Promise<DeploymentRecord> {
    return this.db.$transaction(async (tx) => {
      // The app row's counter, incremented under its row lock, numbers the deployments of one app.
      const [app] = await tx.$queryRaw<{ number: number }[]>`
        UPDATE apps SET next_deployment_number = next_deployment_number + 1
        WHERE id = ${input.appId}::uuid AND workspace_id = ${input.workspaceId}::uuid
        RETURNING next_deployment_number - 1 AS number`;
      if (!app) throw new Error(`No app ${input.appId}`);
      const { triggeredBy, ...rest } = input;
      const d = await tx.deployment.create({
        data: { ...rest, number: app.number, triggeredById: triggeredBy?.id ?? null, triggeredByName: triggeredBy?.name ?? '' },
      });
      return toDeploymentRecord(d);
    });
  }

  async find(scope: { workspaceId: string; appId: string; deploymentId: string }): Promise<DeploymentRecord | null> {
    const d = await this.db.deployment.findFirst({ where: { id: scope.deploymentId, appId: scope.appId, workspaceId: scope.workspaceId } });
    return d ? toDeploymentRecord(d) : null;
  }

  async get(deploymentId: string): Promise<DeploymentRecord | null> {
    const d = await this.db.deployment.findUnique({ where: { id: deploymentId } });
    return d ? toDeploymentRecord(d) : null;
  }

  async list(scope: { workspaceId: string; appId: string }, page: { beforeNumber?: number; limit: number }): Promise<DeploymentRecord[]> {
    const rows = await this.db.deployment.findMany({
      where: { appId: scope.appId, workspaceId: scope.workspaceId, ...(page.beforeNumber !== undefined ? { number: { lt: page.beforeNumber } } : {}) },
      orderBy: { number: 'desc' },
      take: page.limit,
    });
    return rows.map(toDeploymentRecord);
  }

  async move(
    deploymentId: string,
    from: readonly DeploymentStatus[],
    to: DeploymentStatus,
    changes: Partial<Pick<DeploymentRecord, 'imageId' | 'imageRef' | 'failureReason' | 'containerId' | 'hostPort' | 'startedAt' | 'finishedAt'>> = {},
  ): Promise<DeploymentRecord | null> {
    const rows = await this.db.deployment.updateManyAndReturn({ where: { id: deploymentId, status: { in: [...from] } }, data: { status: to, ...changes } });
    return rows[0] ? toDeploymentRecord(rows[0]) : null;
  }

  async goLive(deploymentId: string, changes: { containerId: string; hostPort: number | null; imageId: string; imageRef: string }, now: Date): Promise<DeploymentRecord | null> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.deployment.updateManyAndReturn({
        where: { id: deploymentId, status: 'deploying' },
        data: { status: 'live', ...changes, finishedAt: now },
      });
      const d = rows[0];
      if (!d) return null;
      await tx.deployment.updateMany({ where: { appId: d.appId, status: 'live', id: { not: d.id } }, data: { status: 'superseded' } });
      await tx.app.updateMany({
        where: { id: d.appId },
        data: { currentDeploymentId: d.id, status: 'running', desiredState: 'running', statusDetail: Prisma.DbNull, runningSince: now },
      });
      return toDeploymentRecord(d);
    });
  }

  async lastSeq(deploymentId: string): Promise<number> {
    const r = await this.db.deploymentLogLine.aggregate({ where: { deploymentId }, _max: { seq: true } });
    return r._max.seq ?? 0;
  }

  async appendLogs(deploymentId: string, lines: LogLineRecord[]): Promise<void> {
    await this.db.deploymentLogLine.createMany({ data: lines.map((l) => ({ deploymentId, ...l })), skipDuplicates: true });
  }

  async readLogs(deploymentId: string, after: number, limit: number): Promise<LogLineRecord[]> {
    const rows = await this.db.deploymentLogLine.findMany({ where: { deploymentId, seq: { gt: after } }, orderBy: { seq: 'asc' }, take: limit });
    return rows.map((r) => ({ seq: r.seq, phase: r.phase as LogLineRecord['phase'], text: r.text, at: r.at }));
  }

  async withImages(appId: string): Promise<DeploymentRecord[]> {
    const rows = await this.db.deployment.findMany({ where: { appId, imageAvailable: true, imageId: { not: null } }, orderBy: { number: 'desc' } });
    return rows.map(toDeploymentRecord);
  }

  async markImagesGone(deploymentIds: string[]): Promise<void> {
    await this.db.deployment.updateMany({ where: { id: { in: deploymentIds } }, data: { imageAvailable: false } });
  }
}
