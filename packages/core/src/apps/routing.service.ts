import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import type { AgentGateway, AppRoute, RemoteRoute } from '../ports/agents';
import type { AppJobStore, AppWithDeployment, DeploymentRecord } from './app.ports';
import { appHost, type AppsDomain } from './dto';
import { isInUse } from './deployment-state';

/** The ingress route of an app's live deployment: web apps with a subdomain and a published port only. */
export function appRoute(app: AppWithDeployment, live: DeploymentRecord, appsDomain: AppsDomain): AppRoute | null {
  if (app.kind !== 'web' || !app.subdomain || !live.hostPort) return null;
  return { appId: app.id, host: appHost(app.subdomain, appsDomain), upstreamPort: live.hostPort };
}

/**
 * The routes each server should serve, and the repeatable `routes.sync` job that gives them to it. With a mesh port
 * (issue 31, docs/decisions/0032-one-url-whichever-server.md), every server also routes every other server's apps,
 * proxying them to the owner's mesh listener over TLS: an app's URL works through any server's ingress.
 */
export class RoutingService {
  constructor(
    private readonly deps: {
      apps: AppJobStore;
      nodes: NodeRepository;
      agents: AgentGateway;
      appsDomain: AppsDomain;
      logger: Logger;
      /** The servers' mesh listener port (SLIPWAY_MESH_PORT); 0 or absent: each server routes only its own apps. */
      meshPort?: number;
    },
  ) {}

  /** Every route a node should serve: web apps meant to run, with a live container. */
  async routesOf(nodeId: string): Promise<AppRoute[]> {
    const routes: AppRoute[] = [];
    for (const app of await this.deps.apps.listOnNode(nodeId)) {
      const live = isInUse(app.currentDeployment?.status) ? app.currentDeployment : null;
      const route = live && app.desiredState === 'running' ? appRoute(app, live, this.deps.appsDomain) : null;
      if (route) routes.push(route);
    }
    return routes;
  }

  /** The apps of every other server, each proxied to its owner's mesh listener (none without a mesh port). */
  async remoteRoutesOf(nodeId: string): Promise<RemoteRoute[]> {
    if (!this.deps.meshPort) return [];
    const remote: RemoteRoute[] = [];
    for (const owner of await this.deps.nodes.list()) {
      if (owner.id === nodeId) continue;
      const ownerAddress = `${hostOf(owner.grpcAddress)}:${this.deps.meshPort}`;
      for (const r of await this.routesOf(owner.id)) remote.push({ appId: r.appId, host: r.host, ownerAddress, ownerName: owner.name });
    }
    return remote;
  }

  async syncRoutes(node: { id: string; name: string; grpcAddress: string }): Promise<{ added: number; removed: number }> {
    return this.deps.agents.syncRoutes({ name: node.name, grpcAddress: node.grpcAddress }, await this.routesOf(node.id), await this.remoteRoutesOf(node.id));
  }

  /** The `routes.sync` job: every online server gets its routes; one that does not answer is skipped. */
  async syncAllRoutes(): Promise<{ nodes: number; added: number; removed: number }> {
    let added = 0;
    let removed = 0;
    let nodes = 0;
    for (const node of (await this.deps.nodes.list()).filter((n) => n.status === 'online')) {
      try {
        const r = await this.syncRoutes(node);
        added += r.added;
        removed += r.removed;
        nodes++;
      } catch (e) {
        this.deps.logger.warn({ node: node.name, err: (e as Error).message }, 'routes not synced');
      }
    }
    return { nodes, added, removed };
  }
}

/** The host of a host:port address ([v6]:port too), as it would be dialled. */
function hostOf(address: string): string {
  const m = /^\[?([^\]]*)\]?:\d+$/.exec(address);
  const host = m ? m[1]! : address;
  return host.includes(':') ? `[${host}]` : host;
}
