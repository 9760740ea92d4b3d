import type { NodeRecord, NodeRepository } from '../nodes/node.ports';
import { NodeService } from '../nodes/node.service';
import type { AgentGateway } from '../ports/agents';
import { DatabaseService, type DatabaseServiceDeps } from './database.service';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined, child: () => quiet } as unknown as DatabaseServiceDeps['logger'];
const AT = new Date('2026-11-26T23:50:00Z');

const node = (o: Partial<NodeRecord>): NodeRecord =>
  ({ id: 'n1', name: 'node-1', grpcAddress: '127.0.0.1:1', status: 'online', databaseEngines: null, disk: null, cordonedAt: null, unreachableSince: null, ...o }) as NodeRecord;

/** The engines read over these node rows; an agent that would fail the test if it were asked. */
function enginesOf(nodes: NodeRecord[]) {
  const asked = jest.fn(() => Promise.reject(new Error('a read asked the agent')));
  const service = new DatabaseService({ nodes: { list: async () => nodes } as unknown as NodeRepository, agents: { databaseEngines: asked } as unknown as DatabaseServiceDeps['agents'], logger: quiet } as DatabaseServiceDeps);
  return { read: () => service.engines(), asked };
}

describe('GET /v1/database-engines reads what the health checks recorded, never the agent (issue 34)', () => {
  it('answers each engine with the time its server said so', async () => {
    const { read, asked } = enginesOf([
      node({ databaseEngines: { at: AT, engines: [{ engine: 'postgres', image: 'slipway/postgres:15', available: true, hint: '' }, { engine: 'mongodb', image: 'mongo:7', available: false, hint: 'docker load -i mongo.tar' }] } }),
    ]);
    const by = Object.fromEntries((await read()).map((e) => [e.engine, e]));
    expect(by.postgres).toMatchObject({ available: true, image: 'slipway/postgres:15', reason: null, checkedAt: AT.toISOString() });
    expect(by.mongodb).toMatchObject({ available: false, reason: 'docker load -i mongo.tar', checkedAt: AT.toISOString() });
    expect(by.redis).toMatchObject({ available: false, reason: 'No server has reported its engines yet', checkedAt: null });
    expect(asked).not.toHaveBeenCalled();
  });

  it('takes an available engine from any online server, never from an offline one', async () => {
    const later = new Date(AT.getTime() + 60_000);
    const { read } = enginesOf([
      node({ id: 'n1', databaseEngines: { at: AT, engines: [{ engine: 'redis', image: 'redis', available: false, hint: 'load it' }] } }),
      node({ id: 'n2', databaseEngines: { at: later, engines: [{ engine: 'redis', image: 'redis', available: true, hint: '' }] } }),
      node({ id: 'n3', status: 'offline', databaseEngines: { at: later, engines: [{ engine: 'mysql', image: 'mariadb', available: true, hint: '' }] } }),
    ]);
    const by = Object.fromEntries((await read()).map((e) => [e.engine, e]));
    expect(by.redis).toMatchObject({ available: true, checkedAt: later.toISOString() });
    expect(by.mysql).toMatchObject({ available: false, checkedAt: null });
  });
});

describe('the health check records the engines its agent reports', () => {
  /** A health check of one node whose agent answers `engines` (or fails to). */
  async function check(engines: () => Promise<{ engine: string; image: string; available: boolean; hint: string }[]>) {
    const recorded: unknown[] = [];
    const nodes = {
      list: async () => [node({})],
      recordReachability: async () => undefined,
      setStatus: async () => true,
      recordDisk: async () => undefined,
      recordEngines: async (id: string, e: unknown, at: Date) => void recorded.push({ id, e, at }),
    } as unknown as NodeRepository;
    const agents = { health: async () => undefined, nodeInfo: async () => ({}) } as unknown as AgentGateway;
    await new NodeService({ nodes, agents, engines: { databaseEngines: engines }, logger: quiet, offlineAfterMs: 60_000, now: () => AT }).checkHealth();
    return recorded;
  }

  it('stores the list with the check time', async () => {
    const list = [{ engine: 'postgres', image: 'p', available: true, hint: '' }];
    expect(await check(async () => list)).toEqual([{ id: 'n1', e: list, at: AT }]);
  });

  it('keeps the last list when the agent does not tell (an older agent): the node is still online', async () => {
    expect(await check(() => Promise.reject(new Error('unimplemented')))).toEqual([]);
  });
});
