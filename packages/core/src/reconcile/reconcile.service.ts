import { journalIdOf, type AppConvergeService, type ConvergeAction } from '../apps/app-converge.service';
import type { AppLocks } from '../apps/app-locks';
import type { AppJobStore, DeploymentJobStore } from '../apps/app.ports';
import type { RoutingService } from '../apps/routing.service';
import { isOperationJob } from '../jobs';
import type { Logger } from '../logging';
import { LABELS, type AgentGateway, type ManagedContainer } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { HealthReport, NodeService } from '../nodes/node.service';
import type { OperationStore } from '../operations/operation.ports';
import { target } from '../operations/operation.service';
import { claimedWorkspaceIds, findOrphans } from './orphans';
import type { DatabaseConvergeService, DatabaseReconcileReport } from '../databases/database-converge.service';

/** Which owner rows exist; reconciliation removes nothing whose owner is still there. */
export interface OwnerRepository {
  /** The ids among `ids` that have a workspace row (deleted or not). */
  existingWorkspaceIds(ids: string[]): Promise<Set<string>>;
  /** Among `ids`, the workspaces marked deleted whose teardown is not queued or running, with all their app ids. */
  deletedWorkspaces(ids: string[]): Promise<Map<string, string[]>>;
}

export interface ReconcileReport {
  health: HealthReport;
  nodesCompared: string[];
  orphansRemoved: { node: string; containerId: string; workspaceId: string }[];
  /** Deleted (or unknown) workspaces whose leftovers (containers, networks, images, folders) were removed. */
  workspacesRemoved: { node: string; workspaceId: string; containers: number; networks: number }[];
  requeued: string[];
  /** Apps compared with their containers. */
  appsCompared: number;
  /** What was done to make apps match their desired state (start, recreate, stop, remove, status), with the reason. */
  repairs: AppRepair[];
  /** Routes the ingress was missing (or had too many), per node. */
  routes: { node: string; added: number; removed: number }[];
  /** Apps left alone this pass: an operation or a deployment held the app's lock (it converges the app itself). */
  busy: string[];
  /** Apps whose comparison or repair failed (retried next pass). */
  failed: { node: string; appId: string; error: string }[];
  /** Databases compared with what their servers hold (issue 12), per node. */
  databases?: DatabaseReconcileReport[];
}

export type AppRepair = ConvergeAction & { node: string };
export type AppsReport = Pick<ReconcileReport, 'nodesCompared' | 'appsCompared' | 'repairs' | 'routes' | 'busy' | 'failed'>;

/** What comparing apps with their containers needs: the apps, their deployments, the lock and the repairs. */
export interface AppReconcileDeps {
  apps: AppJobStore;
  deployments: DeploymentJobStore;
  converge: AppConvergeService;
  locks: AppLocks;
  routing: RoutingService;
}

/**
 * Compares what PostgreSQL says should exist with what each agent reports, and repairs drift. It only
 * acts on nodes that answered during this run: an offline or unknown node is never cleaned up, so an
 * agent that drops off never causes anything to be deleted.
 *
 * Each app on a node is compared with its containers (AppConvergeService under the app's lock, skipped when an
 * operation holds it): the current container started or recreated for an app meant to run, stopped for one meant to
 * be stopped, containers of deployments no longer current removed, the recorded status corrected both ways; then
 * the node's routes are restored. A container Docker is restarting (its backoff after a crash) is left alone.
 */
export class ReconcileService {
  constructor(
    private readonly deps: {
      nodes: NodeService;
      owners: OwnerRepository;
      operations: OperationStore;
      agents: AgentGateway;
      jobs: JobQueue;
      logger: Logger;
      /** Apps compared with their containers; without it only orphans and stranded operations are handled. */
      apps?: AppReconcileDeps;
      /** Queued rows older than this get their job added again (BullMQ ignores a job id it already has). */
      requeueAfterMs?: number;
      /** Databases compared with their containers (issue 12); without it they are not. */
      databases?: DatabaseConvergeService;
    },
  ) {}

  async run(runId: string): Promise<ReconcileReport> {
    const health = await this.deps.nodes.checkHealth();
    const report: ReconcileReport = {
      health,
      nodesCompared: [],
      orphansRemoved: [],
      workspacesRemoved: [],
      requeued: [],
      appsCompared: 0,
      repairs: [],
      routes: [],
      busy: [],
      failed: [],
    };

    for (const node of await this.deps.nodes.reachable()) {
      const containers = await this.deps.agents.listManagedContainers(target(node));
      const existing = await this.deps.owners.existingWorkspaceIds(claimedWorkspaceIds(containers));
      const orphans = findOrphans(containers, new Set([...existing].map((id) => id.toLowerCase())));
      report.nodesCompared.push(node.name);
      await this.compareApps(runId, node, containers, report);
      await this.compareDatabases(runId, node, report);
      if (orphans.length > 0) {
        const { removed } = await this.deps.agents.removeManagedContainers(target(node), {
          operationId: journalIdOf(`reconcile-${runId}-${node.id}`),
          containerIds: orphans.map((c) => c.id),
        });
        for (const c of orphans.filter((o) => removed.includes(o.id))) {
          report.orphansRemoved.push({ node: node.name, containerId: c.id, workspaceId: c.labels[LABELS.workspace]! });
        }
        this.deps.logger.warn({ node: node.name, removed }, 'removed containers whose workspace is gone');
      }
      await this.removeDeletedWorkspaces(node, runId, containers, existing, report);
    }

    const stale = await this.deps.operations.listQueuedBefore(new Date(Date.now() - (this.deps.requeueAfterMs ?? 120_000)), 500);
    for (const op of stale) {
      const kind = op.kind;
      // Every operation job carries `{ operationId }` alone, so the row is all it takes to queue it again.
      if (!isOperationJob(kind)) {
        this.deps.logger.error({ operationId: op.id, kind }, 'a queued operation of no known job kind');
        continue;
      }
      try {
        await this.deps.jobs.enqueue(kind, { operationId: op.id }, { jobId: op.id });
        report.requeued.push(op.id);
      } catch (e) {
        this.deps.logger.error({ operationId: op.id, err: (e as Error).message }, 'could not queue the job of a queued operation');
      }
    }
    return report;
  }

  /** Databases of the node brought to their desired state (a failure is logged; the next pass tries again). */
  private async compareDatabases(runId: string, node: { id: string; name: string; grpcAddress: string }, report: ReconcileReport): Promise<void> {
    if (!this.deps.databases) return;
    try {
      (report.databases ??= []).push(await this.deps.databases.reconcileNode(node, runId));
    } catch (e) {
      this.deps.logger.error({ node: node.name, err: (e as Error).message }, 'could not compare the databases with their containers');
    }
  }

  /**
   * What a failed teardown left: the containers and networks (this platform's only: the agent lists no other) of
   * workspaces marked deleted whose teardown is over, and the networks of workspaces that no longer exist.
   */
  private async removeDeletedWorkspaces(
    node: { id: string; name: string; grpcAddress: string },
    runId: string,
    containers: ManagedContainer[],
    existing: Set<string>,
    report: ReconcileReport,
  ): Promise<void> {
    const networks = await this.deps.agents.listWorkspaceNetworks(target(node));
    const byNetwork = [...new Set(networks.map((n) => n.workspaceId).filter((id) => UUID.test(id)))];
    // Rows of the workspaces only networks claim (a workspace whose containers are all gone has its network still).
    const known = new Set([...existing, ...(await this.deps.owners.existingWorkspaceIds(byNetwork.filter((id) => !existing.has(id))))]);
    const claimed = [...new Set([...claimedWorkspaceIds(containers), ...byNetwork])];
    const deleted = await this.deps.owners.deletedWorkspaces(claimed.filter((id) => known.has(id)));
    const unknown = byNetwork.filter((id) => !known.has(id));
    const gone = new Map<string, string[]>(deleted);
    for (const id of unknown) if (!gone.has(id)) gone.set(id, [...new Set(containers.filter((c) => c.labels[LABELS.workspace] === id).map((c) => c.labels[LABELS.app]).filter((a): a is string => !!a))]);
    for (const [workspaceId, appIds] of gone) {
      try {
        const removed = await this.deps.agents.removeWorkspace(target(node), { operationId: journalIdOf(`reconcile-${runId}-${workspaceId}`), workspaceId, appIds });
        report.workspacesRemoved.push({ node: node.name, workspaceId, containers: removed.containers, networks: removed.networks });
        this.deps.logger.warn({ node: node.name, workspaceId, removed }, 'removed what a deleted workspace left on its server');
      } catch (e) {
        this.deps.logger.error({ node: node.name, workspaceId, err: (e as Error).message }, 'could not remove what a deleted workspace left');
      }
    }
  }

  /**
   * The apps half of a pass alone (no orphan removal, no re-queueing): every app on each answering node compared with
   * its containers and repaired, then the node's routes. The tests of convergence use it on an engine they share.
   */
  async compareAllApps(runId: string): Promise<AppsReport> {
    const report: AppsReport = { nodesCompared: [], appsCompared: 0, repairs: [], routes: [], busy: [], failed: [] };
    for (const node of await this.deps.nodes.reachable()) {
      report.nodesCompared.push(node.name);
      await this.compareApps(runId, node, await this.deps.agents.listManagedContainers(target(node)), report);
    }
    return report;
  }

  /**
   * One app, at once (a container event): compared and repaired like a pass would, unless an operation holds its
   * lock. null when it was busy.
   */
  async reconcileApp(node: { id: string; name: string; grpcAddress: string }, appId: string, why: string): Promise<ConvergeAction[] | null> {
    const deps = this.deps.apps;
    if (!deps) return [];
    const inFlight = await deps.deployments.appsWithDeploymentsInFlight([appId]);
    const done = await deps.locks.tryWithApp(appId, () =>
      deps.converge.converge(target(node), appId, { operationId: journalIdOf(`event-${Date.now()}-${appId}`), settleDeploying: !inFlight.has(appId) }),
    );
    for (const a of done?.value.actions ?? []) this.deps.logger.warn({ node: node.name, appId, repair: a.kind, reason: a.reason, why }, 'app repaired');
    return done ? done.value.actions : null;
  }

  private async compareApps(runId: string, node: { id: string; name: string; grpcAddress: string }, containers: ManagedContainer[], report: AppsReport): Promise<void> {
    const deps = this.deps.apps;
    if (!deps) return;
    const apps = await deps.apps.listOnNode(node.id);
    const inFlight = await deps.deployments.appsWithDeploymentsInFlight(apps.map((a) => a.id));
    let busy = 0;
    for (const app of apps) {
      report.appsCompared++;
      const snapshot = containers.filter((c) => c.labels[LABELS.app] === app.id);
      try {
        const done = await deps.locks.tryWithApp(app.id, () =>
          deps.converge.converge(target(node), app.id, {
            operationId: journalIdOf(`reconcile-${runId.slice(-24)}-${app.id}`),
            snapshot,
            settleDeploying: !inFlight.has(app.id),
          }),
        );
        if (!done) {
          report.busy.push(app.id);
          busy++;
          continue;
        }
        for (const a of done.value.actions) {
          report.repairs.push({ node: node.name, ...a });
          this.deps.logger.warn({ node: node.name, appId: app.id, repair: a.kind, reason: a.reason }, 'app repaired');
        }
      } catch (e) {
        report.failed.push({ node: node.name, appId: app.id, error: (e as Error).message });
        this.deps.logger.error({ node: node.name, appId: app.id, err: (e as Error).message }, 'could not bring the app to its desired state');
      }
    }
    // A rollout moves its route before its deployment is recorded live: while one runs, the routes wait a pass.
    if (busy) return;
    try {
      const routes = await deps.routing.syncRoutes(node);
      if (routes.added || routes.removed) {
        report.routes.push({ node: node.name, ...routes });
        this.deps.logger.warn({ node: node.name, ...routes }, 'routes restored');
      }
    } catch (e) {
      this.deps.logger.error({ node: node.name, err: (e as Error).message }, 'could not restore the routes');
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
