import type { AppScope, DeploymentChanges, DeploymentRecord, DeploymentRepository, DeploymentScope, DeploymentStatus, LogLineRecord, NewDeployment } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import { toDeploymentRecord } from './app-rows';

/**
 * Deployments, request side: every method is scoped by the workspace and the app. Numbering per app happens under
 * the app row's lock. The worker's moves, `goLive` and log writes are the job-side store's (src/jobs).
 */
export class PrismaDeploymentRepository implements DeploymentRepository {
  constructor(private readonly db: Db) {}

  async create(input: NewDeployment): Promise<DeploymentRecord> {
    return this.db.$transaction(async (tx) => {
      // The app row's counter, incremented under its row lock, numbers the deployments of one app. A deployment is
      // an intent (run this version): it bumps the generation and asks for the app to run, in the same statement.
      const [app] = await tx.$queryRaw<{ number: number }[]>`
        UPDATE apps SET next_deployment_number = next_deployment_number + 1, generation = generation + 1, desired_state = 'running', updated_at = now()
        WHERE id = ${input.appId}::uuid AND workspace_id = ${input.workspaceId}::uuid AND deleted_at IS NULL
        RETURNING next_deployment_number - 1 AS number`;
      if (!app) throw new Error(`No app ${input.appId}`);
      const { triggeredBy, commit, ...rest } = input;
      const d = await tx.deployment.create({
        data: {
          ...rest,
          commitInfo: commit ? { ...commit } : Prisma.DbNull,
          number: app.number,
          triggeredById: triggeredBy?.id ?? null,
          triggeredByName: triggeredBy?.name ?? '',
        },
      });
      return toDeploymentRecord(d);
    });
  }

  async find(scope: DeploymentScope): Promise<DeploymentRecord | null> {
    const d = await this.db.deployment.findFirst({ where: { id: scope.deploymentId, appId: scope.appId, workspaceId: scope.workspaceId } });
    return d ? toDeploymentRecord(d) : null;
  }

  async list(scope: AppScope, page: { beforeNumber?: number; limit: number }): Promise<DeploymentRecord[]> {
    const rows = await this.db.deployment.findMany({
      where: { appId: scope.appId, workspaceId: scope.workspaceId, ...(page.beforeNumber !== undefined ? { number: { lt: page.beforeNumber } } : {}) },
      orderBy: { number: 'desc' },
      take: page.limit,
    });
    return rows.map(toDeploymentRecord);
  }

  async move(scope: DeploymentScope, from: readonly DeploymentStatus[], to: DeploymentStatus, changes: DeploymentChanges = {}): Promise<DeploymentRecord | null> {
    const rows = await this.db.deployment.updateManyAndReturn({
      where: { id: scope.deploymentId, appId: scope.appId, workspaceId: scope.workspaceId, status: { in: [...from] } },
      data: { status: to, ...changes },
    });
    return rows[0] ? toDeploymentRecord(rows[0]) : null;
  }

  async readLogs(scope: DeploymentScope, after: number, limit: number): Promise<LogLineRecord[]> {
    const rows = await this.db.deploymentLogLine.findMany({
      where: { deploymentId: scope.deploymentId, deployment: { appId: scope.appId, workspaceId: scope.workspaceId }, seq: { gt: after } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map((r) => ({ seq: r.seq, phase: r.phase as LogLineRecord['phase'], text: r.text, at: r.at }));
  }

  async withImages(scope: AppScope): Promise<DeploymentRecord[]> {
    const rows = await this.db.deployment.findMany({
      where: { appId: scope.appId, workspaceId: scope.workspaceId, imageAvailable: true, imageId: { not: null } },
      orderBy: { number: 'desc' },
    });
    return rows.map(toDeploymentRecord);
  }
}
