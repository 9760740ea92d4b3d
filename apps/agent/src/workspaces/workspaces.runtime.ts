import { AppError, LABELS, type Logger } from '@slipway/core';
import type { AppsRuntime } from '../apps/apps.runtime';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { WorkspaceNetworks } from '../containers/networks';

/**
 * What a workspace holds on this server, as a whole: its removal when the workspace is deleted (every app's
 * containers, image tags, route and project folder, then any container still labelled with the workspace, then its
 * networks), and the listing of this platform's workspace networks for reconciliation. Objects of another platform
 * on the same engine are never touched (their `slipway.platform` differs).
 */
export class WorkspacesRuntime {
  constructor(
    private readonly docker: DockerRuntime,
    private readonly networks: WorkspaceNetworks,
    private readonly apps: AppsRuntime,
    private readonly logger: Logger,
  ) {}

  async remove(req: { workspaceId: string; appIds: string[] }): Promise<{ containers: number; images: number; networks: number }> {
    let containers = 0;
    let images = 0;
    for (const appId of req.appIds) {
      const removed = await this.apps.removeApp({ workspaceId: req.workspaceId, appId });
      containers += removed.containers;
      images += removed.images;
    }
    // Databases (and anything else of the workspace) carry its label.
    const left = (await this.docker.containersWith([`${LABELS.workspace}=${req.workspaceId}`])).filter((c) => this.docker.isMine(c.Labels));
    for (const c of left) {
      await this.docker.removeContainer(c.Id).catch((e: { statusCode?: number }) => {
        if (e.statusCode !== 404) throw e;
      });
      containers++;
    }
    const { removed, inUse } = await this.networks.remove(req.workspaceId);
    if (inUse > 0) {
      // A container joined the network between the two steps (a rollout still running): the caller tries again.
      throw new AppError('internal', 'The workspace still had containers on its network; its removal will be tried again');
    }
    this.logger.info({ workspaceId: req.workspaceId, containers, images, networks: removed }, 'workspace removed from this server');
    return { containers, images, networks: removed };
  }

  async listNetworks(): Promise<{ id: string; name: string; workspaceId: string; subnets: string[] }[]> {
    return (await this.networks.list()).map((n) => ({ id: n.id, name: n.name, workspaceId: n.labels[LABELS.workspace] ?? '', subnets: n.subnets })).filter((n) => n.workspaceId && n.id);
  }
}

