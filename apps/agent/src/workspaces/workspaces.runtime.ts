import { ImageGate } from '../builds/image-gate';
import { AppError, LABELS, type Logger } from '@slipway/core';
import type { AppsRuntime } from '../apps/apps.runtime';
import { DEFAULT_REMOVAL_CONCURRENCY, RemovalPool } from '../containers/removal-pool';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { CaddyIngress } from '../ingress/caddy.ingress';
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
    private readonly ingress: CaddyIngress,
    private readonly logger: Logger,
    /** Erases the databases of a workspace held here (public ports closed, data folders removed). */
    private readonly removeDatabases: (workspaceId: string) => Promise<number> = async () => 0,
    /** Shared with the builder: image removal waits while builds run (../builds/image-gate.ts). */
    private readonly imageGate: ImageGate = new ImageGate(),
    /** Shared with the apps' removal: at most SLIPWAY_REMOVAL_CONCURRENCY removals at once (../containers/removal-pool.ts). */
    private readonly removals: RemovalPool = new RemovalPool(DEFAULT_REMOVAL_CONCURRENCY),
  ) {}

  /**
   * Everything of the workspace, in batches and in parallel (issue 34: a teardown of hundreds of apps waits on the
   * engine, not on round trips, and at most SLIPWAY_REMOVAL_CONCURRENCY removals run at once on this server): the
   * apps' routes in one change of the ingress, then each app as one removal (its containers, then its project folder,
   * which nothing holds any more: the first apps' folders go while the next apps' containers are removed, instead of
   * every folder waiting for the last container), beside the workspace's other containers (databases); then the apps'
   * image tags from one listing, and the workspace's networks.
   */
  async remove(req: { workspaceId: string; appIds: string[] }): Promise<{ containers: number; images: number; networks: number }> {
    const started = Date.now();
    // Routes first, so nothing is served from here on.
    await this.ingress.removeAll(req.appIds);
    const own = (await this.docker.containersWith([`${LABELS.workspace}=${req.workspaceId}`])).filter((c) => this.docker.isMine(c.Labels));
    const byApp = new Map<string, string[]>(req.appIds.map((appId) => [appId, []]));
    const others: string[] = [];
    for (const c of own) {
      const app = c.Labels?.[LABELS.app];
      if (app && byApp.has(app)) byApp.get(app)!.push(c.Id);
      else others.push(c.Id);
    }
    const removeContainer = (id: string) =>
      this.docker.removeContainer(id).catch((e: { statusCode?: number }) => {
        if (e.statusCode !== 404) throw e;
      });
    const units = [...[...byApp].map(([appId, ids]) => ({ appId, ids })), ...others.map((id) => ({ appId: null, ids: [id] }))];
    await this.removals.each(units, async ({ appId, ids }) => {
      for (const id of ids) await removeContainer(id);
      if (appId) await this.apps.removeFolder(appId);
    });
    const appsGoneMs = Date.now() - started;
    const images = await this.apps.removeImages(req.appIds);
    // Databases: their containers went with the workspace label above; their listeners and data go now.
    await this.removeDatabases(req.workspaceId);
    const { removed, inUse } = await this.networks.remove(req.workspaceId);
    if (inUse > 0) {
      // A container joined the network between the two steps (a rollout still running): the caller tries again.
      throw new AppError('internal', 'The workspace still had containers on its network; its removal will be tried again');
    }
    this.logger.info({ workspaceId: req.workspaceId, containers: own.length, images, networks: removed, appsGoneMs, ms: Date.now() - started }, 'workspace removed from this server');
    return { containers: own.length, images, networks: removed };
  }

  async listNetworks(): Promise<{ id: string; name: string; workspaceId: string; subnets: string[] }[]> {
    return (await this.networks.list()).map((n) => ({ id: n.id, name: n.name, workspaceId: n.labels[LABELS.workspace] ?? '', subnets: n.subnets })).filter((n) => n.workspaceId && n.id);
  }
}

