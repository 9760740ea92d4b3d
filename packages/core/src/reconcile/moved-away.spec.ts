import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { Logger } from '../logging';
import type { HealthReport, NodeService } from '../nodes/node.service';
import type { OperationStore } from '../operations/operation.ports';
import { LABELS, type AgentGateway, type ManagedContainer } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import { ReconcileService } from './reconcile.service';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const W = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const node = { id: 'n-b', name: 'b', grpcAddress: 'b:7443' };
const container = (id: string): ManagedContainer => ({ id, name: `/slipway-app-${id}`, state: 'running', labels: { [LABELS.workspace]: W, [LABELS.app]: 'app-1' }, image: 'x', createdAtMs: 0 }) as ManagedContainer;

/** A pass over server b, which holds a container of workspace W; `placed` says where W is placed now. */
function world(placedOn: string | null) {
  const removed: { workspaceId: string; appIds: string[] }[] = [];
  const agents = {
    listManagedContainers: async () => [container('c1')],
    listWorkspaceNetworks: async () => [],
    removeManagedContainers: async () => ({ removed: [] }),
    removeWorkspace: async (_t: unknown, input: { workspaceId: string; appIds: string[] }) => {
      removed.push({ workspaceId: input.workspaceId, appIds: input.appIds });
      return { containers: 1, images: 2, networks: 1 };
    },
  } as unknown as AgentGateway;
  const locks = new InProcessResourceLocks();
  const reconcile = new ReconcileService({
    nodes: { checkHealth: async (): Promise<HealthReport> => ({ checked: 1, online: [], offline: [], changed: [] }), reachable: async () => [node] } as unknown as NodeService,
    owners: {
      existingWorkspaceIds: async (ids) => new Set(ids),
      deletedWorkspaces: async () => new Map(),
      movedAway: async (ids, nodeId) => new Map(ids.filter(() => placedOn !== null && placedOn !== nodeId).map((id) => [id, ['app-1']])),
    },
    operations: { listQueuedBefore: async () => [] } as unknown as OperationStore,
    agents,
    jobs: {} as JobQueue,
    logger: quiet,
    locks,
    convergers: [],
  });
  return { reconcile, removed, locks };
}

describe('reconcile: what a move left on a server the workspace is not placed on (issue 32)', () => {
  it('removes it (containers, image tags, folders, network) when the workspace lives elsewhere and no move holds it', async () => {
    const w = world('n-a');
    const report = await w.reconcile.run('r1');
    expect(w.removed).toEqual([{ workspaceId: W, appIds: ['app-1'] }]);
    expect(report.movedAwayRemoved).toEqual([{ node: 'b', workspaceId: W, containers: 1, images: 2 }]);
  });

  it('leaves it while a move holds the workspace (the target holds its containers before the switch)', async () => {
    const w = world('n-a');
    let release!: () => void;
    const held = w.locks.hold('workspace', W, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setImmediate(r));
    await w.reconcile.run('r2');
    release();
    await held;
    expect(w.removed).toEqual([]);
  });

  it('leaves the containers of a workspace placed on this server', async () => {
    const w = world('n-b');
    await w.reconcile.run('r3');
    expect(w.removed).toEqual([]);
  });
});
