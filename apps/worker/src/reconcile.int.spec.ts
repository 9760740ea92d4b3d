import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ensureTestImage, openTestCa, startTestAgent, TEST_IMAGE, type TestAgent } from '@slipway/testing/agent';
import { LABELS, type Logger } from '@slipway/core';
import { createDb, type Db } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import Docker from 'dockerode';
import { startWorkerRuntime, type WorkerRuntime } from './runtime';
import { dropRedisPrefix, insertNode, testConfig, testEnv, uniquePrefix, waitFor, waitUntil } from '@slipway/testing/worker';

jest.setTimeout(120_000);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

describe('reconciliation: orphans by label, never on an offline node (real Docker, gRPC, PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Db;
  let caDir: string;
  let agent: TestAgent;
  let runtime: WorkerRuntime;
  let nodeId: string;
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const live = randomUUID();
  const gone = randomUUID();
  const prefix = uniquePrefix('reconcile');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const opened = await openTestCa();
    caDir = opened.dir;
    agent = await startTestAgent(opened.ca, { nodeName: 'reconcile-node' });
    nodeId = (await insertNode(db, agent)).id;
    const plan = await db.plan.create({
      data: { slug: `p-${prefix}`, version: 1, name: 'Test', kind: 'trial', priceCents: 0, currency: 'EUR', cpuMillis: 1000, memoryMb: 1024, maxMembers: 3 },
    });
    await db.workspace.create({
      data: { id: live, name: 'Live', slug: `live-${prefix}`, planId: plan.id, trialEndsAt: new Date(), graceEndsAt: new Date(), nodeId },
    });
    await ensureTestImage(docker);
    runtime = await startWorkerRuntime(testConfig(testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir })), quiet, { events: false, schedule: false });
  });

  afterAll(async () => {
    for (const ws of [live, gone]) {
      const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.workspace}=${ws}`] } });
      await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    }
    await runtime?.close();
    await agent?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  const exists = (id: string) => docker.getContainer(id).inspect().then(() => true, () => false);

  // This agent's own identity: its objects carry it; the reconciler never sees any other platform's.
  const mine = () => ({ [LABELS.platform]: agent.agent.platformId });

  it('removes containers whose workspace row is gone and keeps the rest', async () => {
    const kept = await docker.createContainer({ Image: TEST_IMAGE, Labels: { ...mine(), [LABELS.workspace]: live, [LABELS.app]: randomUUID() } });
    const orphan = await docker.createContainer({ Image: TEST_IMAGE, Labels: { ...mine(), [LABELS.workspace]: gone, [LABELS.app]: randomUUID() } });

    const report = await runtime.services.reconcile.run('run-1');
    expect(report.nodesCompared).toEqual(['reconcile-node']);
    expect(report.orphansRemoved).toEqual([{ node: 'reconcile-node', containerId: orphan.id, workspaceId: gone }]);
    expect(await exists(orphan.id)).toBe(false);
    expect(await exists(kept.id)).toBe(true);
    // The removal went through the agent's journal under the run's operation id.
    expect(await agent.agent.journal.read(`reconcile-run-1-${nodeId}`)).toMatchObject({ state: 'done', starts: 1 });
  });

  it('leaves everything alone on a node that does not answer, and deletes nothing of its rows', async () => {
    const orphan = await docker.createContainer({ Image: TEST_IMAGE, Labels: { ...mine(), [LABELS.workspace]: gone } });
    await agent.agent.close(100);
    try {
      const report = await runtime.services.reconcile.run('run-2');
      expect(report.nodesCompared).toEqual([]);
      expect(report.orphansRemoved).toEqual([]);
      expect(await exists(orphan.id)).toBe(true);
      expect(await db.node.count()).toBe(1);
      expect(await db.workspace.count()).toBe(1);
    } finally {
      await agent.restart();
    }
    // Back online, the next run cleans up.
    await waitFor(async () => (await runtime.services.reconcile.run(`run-3-${Date.now()}`)).orphansRemoved.length === 1, 20_000, 'cleanup after the node is back');
    expect(await exists(orphan.id)).toBe(false);
  });

  it("never touches a second platform's containers on the same engine, whatever their workspace", async () => {
    // Another platform (another test run, a benchmark next to a running platform) with a workspace this one never knew.
    const theirs = await docker.createContainer({ Image: TEST_IMAGE, Labels: { [LABELS.platform]: `other-${prefix}`, [LABELS.workspace]: gone, [LABELS.app]: randomUUID() } });
    for (const run of ['run-6a', 'run-6b']) {
      const report = await runtime.services.reconcile.run(run);
      expect(report.orphansRemoved).toEqual([]);
      expect(report.workspacesRemoved).toEqual([]);
    }
    expect(await exists(theirs.id)).toBe(true);
    await docker.getContainer(theirs.id).remove({ force: true });
  });

  it('removes the containers and network a failed teardown left of a deleted workspace', async () => {
    const plan = await db.plan.findFirstOrThrow();
    const deleted = await db.workspace.create({
      data: { name: 'Deleted', slug: `deleted-${prefix}`, planId: plan.id, trialEndsAt: new Date(), graceEndsAt: new Date(), nodeId, deletedAt: new Date() },
    });
    // What the agent made for it, and a teardown that failed for good.
    await db.operation.create({ data: { kind: 'workspace.teardown', nodeId, workspaceId: deleted.id, status: 'failed', payload: {} } });
    const net = await docker.createNetwork({
      Name: `slipway-wsnet-${deleted.id}`,
      Driver: 'bridge',
      Labels: { ...mine(), [LABELS.workspace]: deleted.id, 'slipway.network': 'workspace' },
      // Subnets of their own (documentation addresses): the engine's default pools may be used up by other runs.
      IPAM: { Driver: 'default', Config: [{ Subnet: '192.0.2.0/29' }] },
    });
    const left = await docker.createContainer({ Image: TEST_IMAGE, Labels: { ...mine(), [LABELS.workspace]: deleted.id }, HostConfig: { NetworkMode: net.id } });
    // A live workspace's network with no container on it (all its apps stopped or removed) stays.
    const liveNet = await docker.createNetwork({ Name: `slipway-wsnet-${live}`, Driver: 'bridge', Labels: { ...mine(), [LABELS.workspace]: live, 'slipway.network': 'workspace' }, IPAM: { Driver: 'default', Config: [{ Subnet: '192.0.2.8/29' }] } });
    const report = await runtime.services.reconcile.run('run-7');
    expect(report.workspacesRemoved).toEqual([{ node: 'reconcile-node', workspaceId: deleted.id, containers: 1, networks: 1 }]);
    expect(await exists(left.id)).toBe(false);
    expect(await docker.getNetwork(net.id).inspect().then(() => true, () => false)).toBe(false);
    // The live workspace keeps what it has.
    expect((await runtime.services.reconcile.run('run-8')).workspacesRemoved).toEqual([]);
    expect(await docker.getNetwork(liveNet.id).inspect().then(() => true, () => false)).toBe(true);
    await docker.getNetwork(liveNet.id).remove();
  });

  it('queues again the job of an operation left queued without one', async () => {
    const row = await db.operation.create({ data: { kind: 'agent.noop', nodeId, payload: {}, createdAt: new Date(Date.now() - 10 * 60_000) } });
    const report = await runtime.services.reconcile.run('run-4');
    expect(report.requeued).toContain(row.id);
    expect(await runtime.jobs.queue('agent').getJob(row.id)).toBeTruthy();
  });

  it('recovers a stranded app power operation: re-queued with { operationId } alone, run to the end from its row', async () => {
    const app = await db.app.create({
      data: { workspaceId: live, name: 'Stranded', slug: `stranded-${prefix}`, kind: 'worker', source: 'image', image: TEST_IMAGE, cpuMillis: 100, memoryMb: 128, desiredState: 'stopped' },
    });
    // As the API records it when queueing its job failed: the row alone, queued, long ago.
    const row = await db.operation.create({
      data: { kind: 'app.power', nodeId, workspaceId: live, payload: { workspaceId: live, appId: app.id, action: 'stop' }, createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    const report = await runtime.services.reconcile.run('run-5');
    expect(report.requeued).toContain(row.id);
    expect((await runtime.jobs.queue('agent').getJob(row.id))?.data).toEqual({ operationId: row.id });
    const done = await waitUntil(() => db.operation.findUniqueOrThrow({ where: { id: row.id } }), (r) => ['succeeded', 'failed'].includes(r.status), 30_000, 'the recovered operation to finish');
    // The app has no live deployment: nothing to stop on the server, and the row settles as done (not refused as a bad payload).
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, error: null, result: { skipped: 'no live deployment' } });
  });
});
