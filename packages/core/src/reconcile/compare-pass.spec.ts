import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { Converger } from '../convergence/converger';
import type { Logger } from '../logging';
import type { HealthReport, NodeService } from '../nodes/node.service';
import type { OperationStore } from '../operations/operation.ports';
import type { AgentGateway } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import { ReconcileService } from './reconcile.service';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const node = { id: 'n-a', name: 'a', grpcAddress: 'a:7443' };
const ids = Array.from({ length: 40 }, (_, i) => `app-${String(i).padStart(2, '0')}`);

/** An app converger whose comparisons take a few ms each, counting how many run at once. */
function slowConverger() {
  const seen = { now: 0, most: 0 };
  const converger: Converger = {
    kind: 'app',
    listOnNode: async () => ({ ids, context: null }),
    convergeOne: async (_node, id) => {
      seen.most = Math.max(seen.most, ++seen.now);
      await new Promise((r) => setTimeout(r, 5));
      seen.now--;
      if (id === 'app-07') throw new Error('the agent did not answer');
      return id.endsWith('3') ? [{ kind: 'start', reason: 'it was stopped' }] : [];
    },
  };
  return { converger, seen };
}

function reconcileWith(converger: Converger, locks = new InProcessResourceLocks()) {
  return new ReconcileService({
    nodes: { checkHealth: async (): Promise<HealthReport> => ({ checked: 1, online: [], offline: [], changed: [] }), reachable: async () => [node] } as unknown as NodeService,
    owners: { existingWorkspaceIds: async (x) => new Set(x), deletedWorkspaces: async () => new Map() },
    operations: { listQueuedBefore: async () => [] } as unknown as OperationStore,
    agents: { listManagedContainers: async () => [], listWorkspaceNetworks: async () => [], removeManagedContainers: async () => ({ removed: [] }) } as unknown as AgentGateway,
    jobs: {} as JobQueue,
    logger: quiet,
    locks,
    convergers: [converger],
  });
}

describe('a reconcile pass compares the resources of a kind several at once (issue 34)', () => {
  it('runs up to 8 comparisons at once, never more, and reports them in the listing order', async () => {
    const { converger, seen } = slowConverger();
    const report = await reconcileWith(converger).run('r1');
    expect(seen.most).toBe(8);
    expect(report.compared.app).toBe(40);
    expect(report.repairs.map((r) => r.id)).toEqual(['app-03', 'app-13', 'app-23', 'app-33']);
    expect(report.failed).toEqual([{ node: 'a', resource: 'app', id: 'app-07', error: 'the agent did not answer' }]);
  });

  it('leaves a resource whose lock a job holds, and says so', async () => {
    const { converger } = slowConverger();
    const locks = new InProcessResourceLocks();
    let release!: () => void;
    const held = locks.hold('app', 'app-21', () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setImmediate(r));
    const report = await reconcileWith(converger, locks).run('r2');
    release();
    await held;
    expect(report.busy).toEqual([{ resource: 'app', id: 'app-21' }]);
    expect(report.compared.app).toBe(40);
  });
});
