import type { AppJobStore, AppStateChange, AppWithDeployment } from '@slipway/core';
import type { Db } from '../client';
import { appStateData, withDeployments } from '../repositories/app-rows';

/**
 * Apps, job side: keyed by the app id a job already holds (an operation's payload, a deployment's app, a container's
 * labels), deleted apps included. Only the worker composes it.
 */
export class PrismaAppJobStore implements AppJobStore {
  constructor(private readonly db: Db) {}

  async listOnNode(nodeId: string): Promise<AppWithDeployment[]> {
    return withDeployments(
      this.db,
      await this.db.app.findMany({ where: { deletedAt: null, workspace: { nodeId, deletedAt: null } }, orderBy: { id: 'asc' } }),
    );
  }

  /** An app of a deleted workspace counts as deleted (its workspace's teardown removes it): nothing converges it. */
  async getById(appId: string): Promise<(AppWithDeployment & { deletedAt: Date | null }) | null> {
    const found = await this.db.app.findUnique({ where: { id: appId }, include: { workspace: { select: { deletedAt: true } } } });
    if (!found) return null;
    const { workspace, ...a } = found;
    return { ...(await withDeployments(this.db, [a]))[0]!, deletedAt: a.deletedAt ?? workspace.deletedAt };
  }

  async nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string } | null> {
    const w = await this.db.workspace.findUnique({ where: { id: workspaceId }, select: { node: { select: { id: true, name: true, grpcAddress: true } } } });
    return w?.node ?? null;
  }

  async setState(appId: string, state: AppStateChange): Promise<void> {
    await this.db.app.updateMany({ where: { id: appId }, data: appStateData(state) });
  }

  async setStateIf(appId: string, expected: { currentDeploymentId: string; desiredState: 'running' | 'stopped' }, state: AppStateChange): Promise<boolean> {
    const { count } = await this.db.app.updateMany({
      where: { id: appId, currentDeploymentId: expected.currentDeploymentId, desiredState: expected.desiredState, deletedAt: null },
      data: appStateData(state),
    });
    return count > 0;
  }
}
