import { isOperationJob } from '../jobs';
import type { Logger } from '../logging';
import type { AgentGateway } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { HealthReport, NodeService } from '../nodes/node.service';
import type { OperationStore } from '../operations/operation.ports';
import { target } from '../operations/operation.service';
import { claimedWorkspaceIds, findOrphans } from './orphans';

/** Which owner rows exist; reconciliation removes nothing whose owner is still there. */
export interface OwnerRepository {
  /** The ids among `ids` that have a workspace row (deleted or not). */
  existingWorkspaceIds(ids: string[]): Promise<Set<string>>;
}

export interface ReconcileReport {
  health: HealthReport;
  nodesCompared: string[];
  orphansRemoved: { node: string; containerId: string; workspaceId: string }[];
  requeued: string[];
}

/**
 * Compares what PostgreSQL says should exist with what each agent reports, and repairs drift. It only
 * acts on nodes that answered during this run: an offline or unknown node is never cleaned up, so an
 * agent that drops off never causes anything to be deleted.
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
      /** Queued rows older than this get their job added again (BullMQ ignores a job id it already has). */
      requeueAfterMs?: number;
    },
  ) {}

  async run(runId: string): Promise<ReconcileReport> {
    const health = await this.deps.nodes.checkHealth();
    const report: ReconcileReport = { health, nodesCompared: [], orphansRemoved: [], requeued: [] };

    for (const node of await this.deps.nodes.reachable()) {
      const containers = await this.deps.agents.listManagedContainers(target(node));
      const existing = await this.deps.owners.existingWorkspaceIds(claimedWorkspaceIds(containers));
      const orphans = findOrphans(containers, new Set([...existing].map((id) => id.toLowerCase())));
      report.nodesCompared.push(node.name);
      if (orphans.length === 0) continue;
      const { removed } = await this.deps.agents.removeManagedContainers(target(node), {
        operationId: `reconcile-${runId}-${node.id}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 128),
        containerIds: orphans.map((c) => c.id),
      });
      for (const c of orphans.filter((o) => removed.includes(o.id))) {
        report.orphansRemoved.push({ node: node.name, containerId: c.id, workspaceId: c.labels['slipway.workspace']! });
      }
      this.deps.logger.warn({ node: node.name, removed }, 'removed containers whose workspace is gone');
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
}
