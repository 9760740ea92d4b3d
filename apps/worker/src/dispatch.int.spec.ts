import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startTestAgent, openTestCa, type TestAgent } from '@slipway/testing/agent';
import { OperationService, NOOP_JOB, type Logger } from '@slipway/core';
import { createAgentRepositories, createDb, type Db } from '@slipway/db';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { startWorkerRuntime, type WorkerRuntime } from './runtime';
import { dropRedisPrefix, insertNode, testConfig, testEnv, uniquePrefix, waitFor, waitUntil } from '@slipway/testing/worker';

jest.setTimeout(120_000);

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

describe('dispatch: row → BullMQ job → worker → agent over mTLS (real PostgreSQL, Redis, gRPC)', () => {
  let database: TestDatabase;
  let db: Db;
  let ca: CertificateAuthority;
  let caDir: string;
  let agent: TestAgent;
  let nodeId: string;
  let runtime: WorkerRuntime;
  const prefix = uniquePrefix('dispatch');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    ({ ca, dir: caDir } = await openTestCa());
    agent = await startTestAgent(ca, { nodeName: 'dispatch-node' });
    nodeId = (await insertNode(db, agent)).id;
    runtime = await startWorkerRuntime(testConfig(testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir })), quiet, { events: false });
  });

  afterAll(async () => {
    await runtime?.close();
    await agent?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  const operation = (id: string) => db.operation.findUniqueOrThrow({ where: { id } });

  it('runs an operation through the real path and records the agent result', async () => {
    const op = await runtime.services.operations.submit(NOOP_JOB, { nodeId, payload: { delayMs: 0 } });
    const done = await waitUntil(() => operation(op.id), (row) => row.status === 'succeeded', 15_000, 'success');
    expect(done).toMatchObject({ attempts: 1, error: null });
    expect(done.result).toMatchObject({ operationId: op.id, replayed: false });
    const job = await runtime.jobs.queue('agent').getJob(op.id);
    expect(job?.id).toBe(op.id);
    expect(await job?.getState()).toBe('completed');
  });

  it('retries a job whose agent call fails transiently, and the agent works once', async () => {
    const port = agent.agent.port;
    await agent.agent.close(100);
    const op = await runtime.services.operations.submit(NOOP_JOB, { nodeId, payload: { delayMs: 0 } });
    // The first try finds no agent: the row goes back to queued with the reason, the job waits for its backoff.
    const waiting = await waitUntil(() => operation(op.id), (row) => /^try 1 failed/.test(String(row.error)), 15_000, 'the first try to fail');
    expect(waiting.status).toBe('queued');
    await agent.restart();
    expect(agent.agent.port).toBe(port);
    const done = await waitUntil(() => operation(op.id), (row) => row.status === 'succeeded', 30_000, 'success');
    expect(done.error).toBeNull();
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(await agent.agent.journal.read(op.id)).toMatchObject({ state: 'done', starts: 1 });
    const job = await runtime.jobs.queue('agent').getJob(op.id);
    expect(job!.attemptsMade).toBeGreaterThanOrEqual(1);
    expect(await runtime.jobs.queue('agent').getJobLogs(op.id)).toMatchObject({ logs: [expect.stringMatching(/^try 1 of 5 failed: The agent at .* did not answer/)] });
  });

  it('fails a bad payload at once, without retries', async () => {
    await runtime.jobs.queue('agent').add('agent.noop', { operationId: 'not-a-uuid' }, { jobId: 'bad-payload-1', attempts: 5 });
    await waitFor(async () => (await runtime.jobs.queue('agent').getJobState('bad-payload-1')) === 'failed', 15_000, 'the job to fail');
    const job = (await runtime.jobs.queue('agent').getJob('bad-payload-1'))!;
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toMatch(/Invalid payload for agent.noop/);
    await expect(runtime.jobs.enqueue('agent.noop', { operationId: 'nope' }, { jobId: 'x' })).rejects.toThrow(/Invalid payload/);
  });

  it('leaves a permanently failing operation failed with its reason, never running', async () => {
    const row = await db.operation.create({ data: { kind: 'no.such-kind', nodeId, payload: {} } });
    await runtime.jobs.queue('agent').add('agent.noop', { operationId: row.id }, { jobId: row.id, attempts: 5 });
    const failed = await waitUntil(() => operation(row.id), (r) => r.status === 'failed', 15_000, 'failure');
    expect(failed.error).toMatch(/No handler for operation kind no.such-kind/);
    expect(failed.finishedAt).not.toBeNull();
    await waitFor(async () => (await runtime.jobs.queue('agent').getJobState(row.id)) === 'failed', 15_000, 'the job to fail');
    expect((await runtime.jobs.queue('agent').getJob(row.id))!.attemptsMade).toBe(1);
  });

  it('marks the node online from its health check and offline when it stops answering', async () => {
    await db.node.update({ where: { id: nodeId }, data: { status: 'offline' } });
    await waitFor(async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).status === 'online', 15_000, 'online');
    await agent.agent.close(100);
    try {
      await waitFor(async () => (await db.node.findUniqueOrThrow({ where: { id: nodeId } })).status === 'offline', 20_000, 'offline');
      expect(await db.operation.count()).toBeGreaterThan(0); // nothing deleted
    } finally {
      await agent.restart();
    }
  });
});

describe('a worker killed mid-job (child processes, SIGKILL)', () => {
  let database: TestDatabase;
  let db: Db;
  let ca: CertificateAuthority;
  let caDir: string;
  let agent: TestAgent;
  const children: ChildProcess[] = [];
  const prefix = uniquePrefix('kill');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    ({ ca, dir: caDir } = await openTestCa());
    agent = await startTestAgent(ca, { nodeName: 'kill-node' });
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await agent?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  function startWorker(): ChildProcess & { ready: Promise<void> } {
    const env = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir, extra: { SLIPWAY_LOG_LEVEL: 'info' } });
    // node itself with tsx's loader: one process, so SIGKILL kills the worker (the tsx CLI would leave its child running).
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, 'main.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('workers running')) resolve();
      });
    });
    return Object.assign(child, { ready });
  }

  it('finishes the job after a restart without doing the agent work twice', async () => {
    const node = await insertNode(db, agent);
    const connection = createRedisConnection(TEST_SERVICES.redisUrl);
    const jobs = new BullJobQueue({ connection, prefix });
    const pool = new AgentPool(ca.client);
    const repos = createAgentRepositories(db);
    const operations = new OperationService({ operations: repos.operationStore, agents: pool, jobs });
    try {
      const first = startWorker();
      const op = await operations.submit(NOOP_JOB, { nodeId: node.id, payload: { delayMs: 4000 } });
      await waitFor(() => agent.agent.journal.read(op.id), 30_000, 'the agent to start the work');
      expect((await db.operation.findUniqueOrThrow({ where: { id: op.id } })).status).toBe('running');
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));

      const second = startWorker();
      const done = await waitUntil(() => db.operation.findUniqueOrThrow({ where: { id: op.id } }), (row) => row.status === 'succeeded', 60_000, 'the restarted worker to finish the job');
      expect(await agent.agent.journal.read(op.id)).toMatchObject({ state: 'done', starts: 1 });
      // The restarted worker's call found the work in the journal (running or done): it was not redone.
      expect(done.result).toMatchObject({ operationId: op.id, replayed: true });
      expect(await (await jobs.queue('agent').getJob(op.id))!.getState()).toBe('completed');
      second.kill('SIGKILL');
      await new Promise((r) => second.once('exit', r));
    } finally {
      pool.close();
      await jobs.close();
      connection.disconnect();
    }
  });

  it('on SIGTERM lets the running job finish, then exits 0', async () => {
    const node = await db.node.findFirstOrThrow();
    const connection = createRedisConnection(TEST_SERVICES.redisUrl);
    const jobs = new BullJobQueue({ connection, prefix });
    const pool = new AgentPool(ca.client);
    const repos = createAgentRepositories(db);
    const operations = new OperationService({ operations: repos.operationStore, agents: pool, jobs });
    try {
      const worker = startWorker();
      await worker.ready;
      const op = await operations.submit(NOOP_JOB, { nodeId: node.id, payload: { delayMs: 1500 } });
      await waitFor(() => agent.agent.journal.read(op.id), 30_000, 'the agent to start the work');
      const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      const row = await db.operation.findUniqueOrThrow({ where: { id: op.id } });
      expect(row).toMatchObject({ status: 'succeeded', result: { replayed: false } });
    } finally {
      pool.close();
      await jobs.close();
      connection.disconnect();
    }
  });
});
