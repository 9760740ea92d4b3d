import { rm } from 'node:fs/promises';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import { NOOP_JOB, type Logger } from '@slipway/core';
import { createDb, type Db } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { adminCli } from '@slipway/testing/admin-cli';
import { startWorkerRuntime, type WorkerRuntime } from '@slipway/worker';
import { dropRedisPrefix, insertNode, testConfig, testEnv, uniquePrefix, waitFor } from '@slipway/testing/worker';

jest.setTimeout(180_000);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

describe('slipway-admin against real Redis with real jobs', () => {
  let database: TestDatabase;
  let db: Db;
  let caDir: string;
  let agent: TestAgent;
  let runtime: WorkerRuntime;
  let env: Record<string, string>;
  let failedId: string;
  let doneId: string;
  const prefix = uniquePrefix('cli');

  let admin: ReturnType<typeof adminCli>['admin'];
  let adminJson: ReturnType<typeof adminCli>['adminJson'];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const opened = await openTestCa();
    caDir = opened.dir;
    agent = await startTestAgent(opened.ca, { nodeName: 'cli-node' });
    const node = await insertNode(db, agent);
    env = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir });
    ({ admin, adminJson } = adminCli(env));
    runtime = await startWorkerRuntime(testConfig(env), quiet, { events: false, schedule: false });

    // A job that succeeds and one that fails for good (an operation kind nothing handles).
    doneId = (await runtime.services.operations.submit(NOOP_JOB, { nodeId: node.id })).id;
    const bad = await db.operation.create({ data: { kind: 'no.such-kind', nodeId: node.id, payload: {} } });
    failedId = bad.id;
    await runtime.jobs.add('agent.noop', { operationId: failedId }, { jobId: failedId });
    await waitFor(async () => (await runtime.jobs.queue('agent').getJob(doneId))?.finishedOn, 20_000, 'the good job');
    await waitFor(async () => (await (await runtime.jobs.queue('agent').getJob(failedId))?.getState()) === 'failed', 20_000, 'the bad job');
    await runtime.pool.close();
  });

  afterAll(async () => {
    await runtime?.close();
    await agent?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  it('counts jobs by state per queue', async () => {
    const queues = await adminJson('queues');
    expect(queues).toEqual([
      { queue: 'agent', paused: false, counts: expect.objectContaining({ completed: 1, failed: 1, active: 0 }) },
      { queue: 'maintenance', paused: false, counts: expect.objectContaining({ failed: 0 }) },
    ]);
    const human = await admin('queues');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^QUEUE\s+PAUSED\s+WAITING\s+ACTIVE\s+DELAYED\s+FAILED\s+COMPLETED/);
    expect(human.stdout).toMatch(/agent\s+no\s+0\s+0\s+0\s+1\s+1/);
  });

  it('lists jobs by state and shows one job with its error, stack and logs', async () => {
    const failed = await adminJson('jobs', 'agent', '--state', 'failed');
    expect(failed).toEqual([expect.objectContaining({ id: failedId, name: 'agent.noop', attemptsMade: 1, failedReason: expect.stringMatching(/No handler/) })]);
    expect((await adminJson('jobs', 'agent', '--state', 'completed')).map((j: { id: string }) => j.id)).toEqual([doneId]);

    const detail = await adminJson('job', failedId);
    expect(detail).toMatchObject({ id: failedId, queue: 'agent', state: 'failed', data: { operationId: failedId }, attemptsMade: 1, attempts: 5 });
    expect(detail.stacktrace.join('\n')).toMatch(/UnrecoverableError|No handler/);
    expect(detail.logs).toEqual([expect.stringMatching(/^try 1 of 5 failed: No handler for operation kind no.such-kind/)]);

    const human = await admin('job', failedId);
    expect(human.stdout).toMatch(/state:\s+failed/);
    expect(human.stdout).toMatch(/error:\s+No handler for operation kind/);
    expect(human.stdout).toMatch(/logs:\n {2}try 1 of 5 failed/);
  });

  it('retries only failed jobs and removes jobs, with exit codes scripts can rely on', async () => {
    expect((await admin('retry', doneId)).code).toBe(4);
    expect((await admin('job', '00000000-0000-7000-8000-000000000000')).code).toBe(3);
    expect(await adminJson('retry', failedId)).toEqual({ id: failedId, retried: true });
    const state = await (await runtime.jobs.queue('agent').getJob(failedId))!.getState();
    expect(['waiting', 'active', 'prioritized']).toContain(state);

    expect(await adminJson('remove', failedId)).toEqual({ id: failedId, removed: true });
    expect((await admin('job', failedId)).code).toBe(3);
    expect((await admin('remove', failedId)).code).toBe(3);
  });

  it('pauses and resumes a queue', async () => {
    expect(await adminJson('pause', 'agent')).toEqual({ queue: 'agent', paused: true });
    expect(await runtime.jobs.queue('agent').isPaused()).toBe(true);
    expect((await adminJson('queues'))[0].paused).toBe(true);
    expect(await adminJson('resume', 'agent')).toEqual({ queue: 'agent', paused: false });
    expect(await runtime.jobs.queue('agent').isPaused()).toBe(false);
  });

  it('refuses unknown queues (3) and bad options (2)', async () => {
    const unknown = await admin('jobs', 'nope');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no queue "nope"/);
    expect((await admin('jobs', 'agent', '--state', 'bogus')).code).toBe(2);
    expect((await admin('enroll-token', 'create', '--ttl', 'soon')).code).toBe(2);
    expect((await admin('frobnicate')).code).toBe(2);
  });

  it('lists nodes with status, capacity and last seen, and makes enrollment tokens', async () => {
    const nodes = await adminJson('nodes');
    expect(nodes).toEqual([expect.objectContaining({ name: 'cli-node', status: 'online', capacity: { cpuMillis: 2000, memoryMb: 4096 }, free: { cpuMillis: 2000, memoryMb: 4096 } })]);
    const human = await admin('nodes');
    expect(human.stdout).toMatch(/^NAME\s+STATUS\s+ADDRESS/);
    expect(human.stdout).toMatch(/cli-node\s+online\s+127\.0\.0\.1:\d+\s+0\s+0\s+0\s+0\s+2 vCPU\/2 vCPU\s+4\.0 GiB\/4\.0 GiB/);

    const made = await adminJson('enroll-token', 'create', '--ttl', '10m');
    expect(made.token).toMatch(/^swe_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(made.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(await db.enrollmentToken.count({ where: { usedAt: null } })).toBe(1);
  });

  it('shows the free disk of each node, LOW below its reserve, and the size of the database', async () => {
    await db.node.updateMany({ where: { name: 'cli-node' }, data: { diskTotalMb: 40_000, diskFreeMb: 1_000, diskReserveMb: 4_000 } });
    expect((await adminJson('nodes'))[0].disk).toEqual({ totalMb: 40_000, freeMb: 1_000, reserveMb: 4_000, low: true });
    expect((await admin('nodes')).stdout).toMatch(/1000 MiB\/39\.1 GiB LOW \(reserve 3\.9 GiB\)/);
    await db.node.updateMany({ where: { name: 'cli-node' }, data: { diskFreeMb: 20_000 } });
    expect((await adminJson('nodes'))[0].disk.low).toBe(false);

    const figures = await adminJson('database');
    expect(figures.sizeBytes).toBeGreaterThan(1_000_000);
    expect(figures.tables.map((t: { name: string }) => t.name)).toContain('operations');
    expect((await admin('database')).stdout).toMatch(/^database size: \d/);
  });

  it("shows each server's used and free CPU, memory and disk as its agent measured them (metrics.collect)", async () => {
    expect((await adminJson('nodes'))[0].used).toBeNull();
    await agent.agent.metrics.sampleNow();
    await agent.agent.metrics.sampleNow();
    expect(await runtime.services.metrics.collectAll()).toMatchObject({ nodes: 1, failed: 0 });
    const [node] = await adminJson('nodes');
    expect(node.used).toEqual({
      cpuMillis: expect.any(Number),
      memoryMb: expect.any(Number),
      diskMb: expect.any(Number),
      free: { cpuMillis: expect.any(Number), memoryMb: expect.any(Number), diskMb: expect.any(Number) },
      total: { cpuMillis: expect.any(Number), memoryMb: expect.any(Number), diskMb: expect.any(Number) },
      containers: expect.any(Number),
      at: expect.any(String),
    });
    // The machine's own figures: memory in use is real, and used + free make the total.
    expect(node.used.memoryMb).toBeGreaterThan(100);
    expect(node.used.memoryMb + node.used.free.memoryMb).toBe(node.used.total.memoryMb);
    expect(node.used.diskMb + node.used.free.diskMb).toBe(node.used.total.diskMb);
    expect(node.used.cpuMillis + node.used.free.cpuMillis).toBe(node.used.total.cpuMillis);
    const human = (await admin('nodes')).stdout;
    expect(human).toMatch(/CPU USED\/FREE\s+MEMORY USED\/FREE\s+DISK USED\/FREE\s+MEASURED/);
    expect(human).toMatch(/[\d.]+ vCPU\/[\d.]+ vCPU\s+[\d.]+ (MiB|GiB)\/[\d.]+ (MiB|GiB)\s+[\d.]+ (MiB|GiB)\/[\d.]+ (MiB|GiB)\s+(just now|\d+s ago)/);
  });

  it('cordons and uncordons a server as `nodes cordon|uncordon NODE`, shown in `nodes` and its JSON', async () => {
    expect(await adminJson('nodes', 'cordon', 'cli-node')).toMatchObject({ name: 'cli-node', cordoned: true, cordonedAt: expect.any(String) });
    expect((await adminJson('nodes'))[0]).toMatchObject({ name: 'cli-node', cordoned: true });
    expect((await admin('nodes')).stdout).toMatch(/cli-node\s+online,cordoned/);
    expect((await admin('nodes', 'uncordon', 'cli-node')).stdout).toMatch(/cli-node uncordoned/);
    expect((await adminJson('nodes'))[0]).toMatchObject({ cordoned: false, cordonedAt: null });
    const missing = await admin('nodes', 'cordon', 'nowhere');
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 3, stderr: expect.stringMatching(/no server is enrolled as "nowhere"/i) });
  });

  it('has --help on every command', async () => {
    for (const args of [[], ['queues'], ['jobs'], ['job'], ['retry'], ['remove'], ['pause'], ['resume'], ['nodes'], ['nodes', 'cordon'], ['nodes', 'uncordon'], ['database'], ['enroll-token'], ['enroll-token', 'create']]) {
      const r = await admin(...args, '--help');
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.stdout).toMatch(/^Usage: slipway-admin/);
    }
  });
});
