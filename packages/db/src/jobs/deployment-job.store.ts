import { LOG_ROW_OVERHEAD_BYTES, type DeploymentChanges, type DeploymentJobStore, type DeploymentRecord, type DeploymentStatus, type LogLineRecord } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import { toDeploymentRecord } from '../repositories/app-rows';

/**
 * Deployments, job side: keyed by the deployment id the `deployment.run` job carries (the worker holds the row).
 * Conditional moves, `goLive` in one transaction (live, the previous live superseded, the app's pointer and status;
 * never its desired state),
 * the build/deploy log, the images kept on the server.
 */
export class PrismaDeploymentJobStore implements DeploymentJobStore {
  constructor(private readonly db: Db) {}

  async get(deploymentId: string): Promise<DeploymentRecord | null> {
    const d = await this.db.deployment.findUnique({ where: { id: deploymentId } });
    return d ? toDeploymentRecord(d) : null;
  }

  async move(
    deploymentId: string,
    from: readonly DeploymentStatus[],
    to: DeploymentStatus,
    changes: DeploymentChanges = {},
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
      await tx.deployment.updateMany({ where: { appId: d.appId, status: { in: ['live', 'crashed'] }, id: { not: d.id } }, data: { status: 'superseded' } });
      await tx.app.updateMany({
        where: { id: d.appId },
        // The desired state is left as the last intent set it: a stop accepted during the deployment wins (the
        // runner stops the new container at once, under the app's lock). The container answered: it runs.
        data: { currentDeploymentId: d.id, status: 'running', statusDetail: Prisma.DbNull, runningSince: now },
      });
      return toDeploymentRecord(d);
    });
  }

  async revert(appId: string, fromId: string, toId: string, reason: string, runningSince: Date): Promise<boolean> {
    const lost = new Error('revert lost its race');
    try {
      return await this.db.$transaction(async (tx) => {
        const app = await tx.app.updateMany({
          where: { id: appId, currentDeploymentId: fromId, deletedAt: null },
          data: { currentDeploymentId: toId, status: 'running', statusDetail: Prisma.DbNull, runningSince },
        });
        const from = await tx.deployment.updateMany({ where: { id: fromId, appId, status: { in: ['live', 'crashed'] } }, data: { status: 'crashed', failureReason: reason } });
        const to = await tx.deployment.updateMany({ where: { id: toId, appId, status: 'superseded' }, data: { status: 'live' } });
        if (app.count !== 1 || from.count !== 1 || to.count !== 1) throw lost;
        return true;
      });
    } catch (e) {
      if (e === lost) return false;
      throw e;
    }
  }

  async logState(deploymentId: string): Promise<{ lastSeq: number; bytes: number }> {
    const [r] = await this.db.$queryRaw<{ last: number; bytes: bigint }[]>`
      SELECT COALESCE(MAX(seq), 0)::int AS last, COALESCE(SUM(octet_length(text) + ${LOG_ROW_OVERHEAD_BYTES}), 0)::bigint AS bytes
      FROM deployment_log_lines WHERE deployment_id = ${deploymentId}::uuid`;
    return { lastSeq: r?.last ?? 0, bytes: Number(r?.bytes ?? 0) };
  }

  async appendLogs(deploymentId: string, lines: LogLineRecord[]): Promise<void> {
    await this.db.deploymentLogLine.createMany({ data: lines.map((l) => ({ deploymentId, ...l })), skipDuplicates: true });
  }

  async withImages(appId: string): Promise<DeploymentRecord[]> {
    const rows = await this.db.deployment.findMany({ where: { appId, imageAvailable: true, imageId: { not: null } }, orderBy: { number: 'desc' } });
    return rows.map(toDeploymentRecord);
  }

  async appsWithDeploymentsInFlight(appIds: string[]): Promise<Set<string>> {
    if (appIds.length === 0) return new Set();
    const rows = await this.db.deployment.findMany({
      where: { appId: { in: appIds }, status: { in: ['queued', 'building', 'deploying'] } },
      select: { appId: true },
      distinct: ['appId'],
    });
    return new Set(rows.map((r) => r.appId));
  }

  async markImagesGone(deploymentIds: string[]): Promise<void> {
    await this.db.deployment.updateMany({ where: { id: { in: deploymentIds } }, data: { imageAvailable: false } });
  }
}
