import pLimit from 'p-limit';
import type { ConvergeDone, ConvergeNode, Converger, Repair } from '../convergence/converger';
import { journalIdOf } from '../convergence/journal-id';
import type { ResourceKind, ResourceLocks } from '../convergence/resource-locks';
import { isOperationJob } from '../jobs';
import type { Logger } from '../logging';
import { LABELS, type AgentGateway, type ManagedContainer } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { HealthReport, NodeService } from '../nodes/node.service';
import type { OperationStore } from '../operations/operation.ports';
import { target } from '../operations/operation.service';
import { claimedWorkspaceIds, findOrphans } from './orphans';

/** Resources of one kind compared at once in a pass (each takes its own lock; a repair may ask the agent). */
const COMPARED_AT_ONCE = 8;

/** Which owner rows exist; reconciliation removes nothing whose owner is still there. */
export interface OwnerRepository {
  /** The ids among `ids` that have a workspace row (deleted or not). */
  existingWorkspaceIds(ids: string[]): Promise<Set<string>>;
  /** Among `ids`, the workspaces marked deleted whose teardown is not queued or running, with all their app ids. */
  deletedWorkspaces(ids: string[]): Promise<Map<string, string[]>>;
  /**
   * Among `ids`, the live workspaces placed on another server than `nodeId` and holding no live database placed on
   * `nodeId`, with all their app ids: what this server holds of them is a leftover of a move (issue 32). Optional:
   * without it, none.
   */
  movedAway?(ids: string[], nodeId: string): Promise<Map<string, string[]>>;
  /**
   * The server an app (its workspace's) or a database (its own row's) is placed on; null when unknown or none.
   * Optional: without it, a container event is compared on the server it came from whatever the placement.
   */
  placedOn?(kind: ResourceKind, id: string): Promise<string | null>;
}

export interface ReconcileReport extends ConvergeReport {
  health: HealthReport;
  orphansRemoved: { node: string; containerId: string; workspaceId: string }[];
  /** Deleted (or unknown) workspaces whose leftovers (containers, networks, images, folders) were removed. */
  workspacesRemoved: { node: string; workspaceId: string; containers: number; networks: number }[];
  /** Live workspaces placed on another server whose leftovers here (a move that failed halfway) were removed. */
  movedAwayRemoved?: { node: string; workspaceId: string; containers: number; images: number }[];
  requeued: string[];
}

/** What comparing the workloads of the answering nodes with what they hold found and did. */
export interface ConvergeReport {
  nodesCompared: string[];
  /** Resources compared, per kind. */
  compared: Record<ResourceKind, number>;
  /** What was done to make resources match their desired state (start, recreate, stop, remove, status, routes…), with the reason. */
  repairs: Repair[];
  /** Resources left alone this pass: a job held the resource's lock (it converges the resource itself). */
  busy: { resource: ResourceKind; id: string }[];
  /** Resources whose comparison or repair failed (retried next pass). */
  failed: { node: string; resource: ResourceKind; id: string; error: string }[];
}

/**
 * Compares what PostgreSQL says should exist with what each agent reports, and repairs drift. It only
 * acts on nodes that answered during this run: an offline or unknown node is never cleaned up, so an
 * agent that drops off never causes anything to be deleted.
 *
 * Each workload kind is a `Converger` (apps, databases): every resource of a kind placed on a node is compared with
 * what the node holds and repaired under its lock (`ResourceLocks`), left alone when a job holds it (that job converges
 * it); then the converger's own per-node step (the node's routes for apps). The same comparison runs for one resource
 * at once when a container event names it (`convergeNow`).
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
      locks: ResourceLocks;
      /** The workload kinds compared with what the servers hold (apps, databases); none: only orphans and stranded operations. */
      convergers: Converger[];
      /** Queued rows older than this get their job added again (BullMQ ignores a job id it already has). */
      requeueAfterMs?: number;
    },
  ) {}

  async run(runId: string): Promise<ReconcileReport> {
    const health = await this.deps.nodes.checkHealth();
    const report: ReconcileReport = { health, ...emptyConvergeReport(), orphansRemoved: [], workspacesRemoved: [], requeued: [] };

    for (const node of await this.deps.nodes.reachable()) {
      const containers = await this.deps.agents.listManagedContainers(target(node));
      const existing = await this.deps.owners.existingWorkspaceIds(claimedWorkspaceIds(containers));
      const orphans = findOrphans(containers, new Set([...existing].map((id) => id.toLowerCase())));
      report.nodesCompared.push(node.name);
      for (const converger of this.deps.convergers) await this.compareKind(runId, node, containers, converger, report);
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
      const claimed = await this.removeDeletedWorkspaces(node, runId, containers, existing, report);
      await this.removeMovedAway(node, runId, claimed, report);
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

  /**
   * The workloads half of a pass alone (no orphan removal, no re-queueing): every resource of the given kinds (all by
   * default) on each answering node compared and repaired. The tests of convergence use it on an engine they share.
   */
  async compareAll(runId: string, kinds?: ResourceKind[]): Promise<ConvergeReport> {
    const report = emptyConvergeReport();
    for (const node of await this.deps.nodes.reachable()) {
      report.nodesCompared.push(node.name);
      const containers = await this.deps.agents.listManagedContainers(target(node));
      for (const converger of this.deps.convergers) if (!kinds || kinds.includes(converger.kind)) await this.compareKind(runId, node, containers, converger, report);
    }
    return report;
  }

  /**
   * One resource, at once (a container event): compared and repaired like a pass would, unless a job holds its lock
   * (null: busy, its holder converges it).
   */
  async convergeNow(node: ConvergeNode, kind: ResourceKind, id: string, why: string): Promise<ConvergeDone[] | null> {
    const converger = this.deps.convergers.find((c) => c.kind === kind);
    if (!converger) return [];
    const done = await this.deps.locks.tryHold(kind, id, async () => {
      // Read under the lock: a container event from the server a move just left (its containers stopped there) must
      // not start the app or database again on it — it lives on the target now (issue 32).
      const placed = this.deps.owners.placedOn ? await this.deps.owners.placedOn(kind, id) : null;
      if (placed && placed !== node.id) return [];
      return converger.convergeOne(node, id, { operationId: journalIdOf(`event-${Date.now()}-${id}`), why });
    });
    for (const a of done?.value ?? []) this.deps.logger.warn({ node: node.name, resource: kind, id, repair: a.kind, reason: a.reason, why }, 'repaired');
    return done ? done.value : null;
  }

  private async compareKind(runId: string, node: ConvergeNode, containers: ManagedContainer[], converger: Converger, report: ConvergeReport): Promise<void> {
    const kind = converger.kind;
    let listed: { ids: string[]; context: unknown };
    try {
      listed = await converger.listOnNode(node, containers);
    } catch (e) {
      report.failed.push({ node: node.name, resource: kind, id: '*', error: (e as Error).message });
      this.deps.logger.error({ node: node.name, resource: kind, err: (e as Error).message }, 'could not list the resources of the node');
      return;
    }
    // Each resource on its own (a lock, the comparison, a repair when needed), COMPARED_AT_ONCE at a time: one pass
    // over 1,000 apps waited ~2.5 s on them one by one (bench/density). The report keeps the listing's order.
    const limit = pLimit(COMPARED_AT_ONCE);
    const outcomes = await Promise.all(
      listed.ids.map((id) =>
        limit(async () => {
          try {
            const operationId = journalIdOf(`reconcile-${runId.slice(-24)}-${id}`);
            const done = await this.deps.locks.tryHold(kind, id, () => converger.convergeOne(node, id, { operationId, why: 'reconcile pass', context: listed.context }));
            return done ? { id, repairs: done.value } : { id, busy: true as const };
          } catch (e) {
            return { id, repairs: [], error: (e as Error).message };
          }
        }),
      ),
    );
    const busy: string[] = [];
    for (const o of outcomes) {
      const id = o.id;
      report.compared[kind]++;
      if ('busy' in o) {
        busy.push(id);
        report.busy.push({ resource: kind, id });
      } else if (o.error !== undefined) {
        report.failed.push({ node: node.name, resource: kind, id, error: o.error });
        this.deps.logger.error({ node: node.name, resource: kind, id, err: o.error }, 'could not bring the resource to its desired state');
      } else {
        for (const a of o.repairs) {
          report.repairs.push({ node: node.name, resource: kind, id, ...a });
          this.deps.logger.warn({ node: node.name, resource: kind, id, repair: a.kind, reason: a.reason }, 'repaired');
        }
      }
    }
    if (!converger.afterNode) return;
    try {
      for (const a of await converger.afterNode(node, { runId, busy, context: listed.context })) {
        report.repairs.push({ node: node.name, resource: kind, id: '*', ...a });
        this.deps.logger.warn({ node: node.name, resource: kind, repair: a.kind, reason: a.reason }, 'repaired');
      }
    } catch (e) {
      report.failed.push({ node: node.name, resource: kind, id: '*', error: (e as Error).message });
      this.deps.logger.error({ node: node.name, resource: kind, err: (e as Error).message }, 'could not finish comparing the node');
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
  ): Promise<string[]> {
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
    return claimed.filter((id) => known.has(id) && !gone.has(id));
  }

  /**
   * What this server holds of live workspaces placed on another one: the leftovers of a move that failed after it
   * copied images, folders or started containers here, while this server could not be reached to undo it (issue 32).
   * Each is removed under the workspace's lock, taken only when free: a move in progress holds it (its target holds
   * the workspace's containers legitimately before the switch), and the placement is read again under the lock.
   */
  private async removeMovedAway(node: { id: string; name: string; grpcAddress: string }, runId: string, claimed: string[], report: ReconcileReport): Promise<void> {
    if (!this.deps.owners.movedAway || claimed.length === 0) return;
    for (const workspaceId of (await this.deps.owners.movedAway(claimed, node.id)).keys()) {
      try {
        await this.deps.locks.tryHold('workspace', workspaceId, async () => {
          const appIds = (await this.deps.owners.movedAway!([workspaceId], node.id)).get(workspaceId);
          if (!appIds) return;
          const removed = await this.deps.agents.removeWorkspace(target(node), { operationId: journalIdOf(`reconcile-${runId}-moved-${workspaceId}`), workspaceId, appIds });
          (report.movedAwayRemoved ??= []).push({ node: node.name, workspaceId, containers: removed.containers, images: removed.images });
          this.deps.logger.warn({ node: node.name, workspaceId, removed }, 'removed what a move left on a server the workspace is not placed on');
        });
      } catch (e) {
        this.deps.logger.error({ node: node.name, workspaceId, err: (e as Error).message }, 'could not remove what a move left');
      }
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function emptyConvergeReport(): ConvergeReport {
  return { nodesCompared: [], compared: { app: 0, database: 0 }, repairs: [], busy: [], failed: [] };
}
