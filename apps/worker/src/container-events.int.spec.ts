import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ensureTestImage, openTestCa, startTestAgent, TEST_IMAGE, type TestAgent } from '@slipway/testing/agent';
import { LABELS, type ContainerExitEvent, type Logger, type NodeRecord } from '@slipway/core';
import { createAgentRepositories, createDb, type Db } from '@slipway/db';
import { AgentPool } from '@slipway/proto';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import Docker from 'dockerode';
import { ContainerEventSubscriptions } from './container-events';
import { insertNode, waitFor, waitUntil } from '@slipway/testing/worker';

jest.setTimeout(60_000);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

/** The exit (`die`) of container `id`: starts and removals come on the same stream. */
const isDie = (e: { containerId: string; action: string }, id: string) => e.containerId === id && e.action === 'die';

describe('container exit events: the control plane subscribes to every online agent (real Docker, gRPC)', () => {
  let database: TestDatabase;
  let db: Db;
  let caDir: string;
  let agent: TestAgent;
  let pool: AgentPool;
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const workspaceId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const opened = await openTestCa();
    caDir = opened.dir;
    agent = await startTestAgent(opened.ca, { nodeName: 'events-node' });
    await insertNode(db, agent);
    pool = new AgentPool(opened.ca.client);
    await ensureTestImage(docker);
  });

  afterAll(async () => {
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.workspace}=${workspaceId}`] } });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    pool?.close();
    await agent?.stop();
    await db?.$disconnect();
    await database?.drop();
    await rm(caDir, { recursive: true, force: true });
  });

  it('receives exits with their code and labels, and subscribes again after the agent restarts', async () => {
    const seen: { node: NodeRecord; e: ContainerExitEvent }[] = [];
    const subs = new ContainerEventSubscriptions({ nodes: createAgentRepositories(db).nodes, agents: pool, logger: quiet, onExit: (node, e) => seen.push({ node, e }) });
    subs.start(300);
    try {
      const exitWith = async (code: number) => {
        const c = await docker.createContainer({ Image: TEST_IMAGE, Cmd: ['/bin/busybox', 'sh', '-c', `exit ${code}`], Labels: { [LABELS.platform]: agent.agent.platformId, [LABELS.workspace]: workspaceId } });
        await c.start();
        return c.id;
      };
      await new Promise((r) => setTimeout(r, 500));
      const first = await exitWith(7);
      // Starts and removals come too (the stream is opened with lifecycle events): the exit is the `die`.
      const died = (id: string) => seen.find((s) => isDie(s.e, id));
      await waitFor(async () => died(first), 15_000, 'the first exit');
      expect(died(first)).toMatchObject({ node: { name: 'events-node' }, e: { action: 'die', exitCode: 7, labels: { [LABELS.workspace]: workspaceId } } });

      await agent.restart();
      // A container that exits now, and whether its exit was seen 700 ms later.
      const exitSeen = async () => {
        const id = await exitWith(9);
        await new Promise((r) => setTimeout(r, 700));
        return { id, seen: died(id) !== undefined };
      };
      const { id: second } = await waitUntil(exitSeen, (x) => x.seen, 20_000, 'an exit after the restart');
      expect(died(second)?.e.exitCode).toBe(9);
    } finally {
      subs.stop();
    }
  });
});
