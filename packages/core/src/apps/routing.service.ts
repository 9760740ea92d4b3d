import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import type { AgentGateway, AppRoute } from '../ports/agents';
import type { AppJobStore, AppWithDeployment, DeploymentRecord } from './app.ports';
import { appHost, type AppsDomain } from './dto';
import { isInUse } from './deployment-state';

/** The ingress route of an app's live deployment: web apps with a subdomain and a published port only. */
export function appRoute(app: AppWithDeployment, live: DeploymentRecord, appsDomain: AppsDomain): AppRoute | null {
  if (app.kind !== 'web' || !app.subdomain || !live.hostPort) return null;
  return { appId: app.id, host: appHost(app.subdomain, appsDomain), upstreamPort: live.hostPort };
}

/** The routes each server should serve, and the repeatable `routes.sync` job that gives them to it. */
export class RoutingService {
  constructor(private readonly deps: { apps: AppJobStore; nodes: NodeRepository; agents: AgentGateway; appsDomain: AppsDomain; logger: Logger }) {}

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

  async syncRoutes(node: { id: string; name: string; grpcAddress: string }): Promise<{ added: number; removed: number }> {
    return this.deps.agents.syncRoutes({ name: node.name, grpcAddress: node.grpcAddress }, await this.routesOf(node.id));
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
