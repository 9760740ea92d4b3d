import type { ConvergeDone, ConvergeNode, ConvergeOneOptions, Converger } from '../convergence/converger';
import { LABELS, type ManagedContainer } from '../ports/agents';
import type { AppConvergeService } from './app-converge.service';
import type { AppJobStore, DeploymentJobStore } from './app.ports';
import type { RoutingService } from './routing.service';

/** What a pass learned of a node's apps: their containers, and which have a deployment in flight. */
export interface AppPassContext {
  containers: ManagedContainer[];
  inFlight: Set<string>;
}

/**
 * Apps as the reconciler sees them: every app placed on a node, each compared with its containers by
 * AppConvergeService (the caller holds its lock); then the node's routes restored, unless an app was busy (a rollout
 * moves its route before its deployment is recorded live: the routes wait a pass).
 */
export class AppConverger implements Converger<AppPassContext> {
  readonly kind = 'app' as const;

  constructor(private readonly deps: { apps: AppJobStore; deployments: DeploymentJobStore; converge: AppConvergeService; routing: RoutingService }) {}

  async listOnNode(node: ConvergeNode, containers: ManagedContainer[]) {
    const apps = await this.deps.apps.listOnNode(node.id);
    const ids = apps.map((a) => a.id);
    return { ids, context: { containers, inFlight: await this.deps.deployments.appsWithDeploymentsInFlight(ids) } };
  }

  async convergeOne(node: ConvergeNode, appId: string, o: ConvergeOneOptions<AppPassContext>): Promise<ConvergeDone[]> {
    // A deploying status is replaced only when no deployment of the app is in flight (a build keeps it).
    const inFlight = o.context ? o.context.inFlight : await this.deps.deployments.appsWithDeploymentsInFlight([appId]);
    const snapshot = o.context?.containers.filter((c) => c.labels[LABELS.app] === appId);
    const result = await this.deps.converge.converge(node, appId, { operationId: o.operationId, snapshot, settleDeploying: !inFlight.has(appId) });
    return result.actions.map(({ kind, reason, containerId }) => ({ kind, reason, ...(containerId ? { containerId } : {}) }));
  }

  async afterNode(node: ConvergeNode, o: { busy: string[] }): Promise<ConvergeDone[]> {
    if (o.busy.length) return [];
    const routes = await this.deps.routing.syncRoutes(node);
    if (!routes.added && !routes.removed) return [];
    return [{ kind: 'routes', reason: `routes restored: ${routes.added} added, ${routes.removed} removed` }];
  }
}
