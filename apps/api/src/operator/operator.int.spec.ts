// Issue 32, the operator API: the API process (apps/api/src/main.ts, as it starts on a server) serves servers,
// cordons, drains and workspace moves on its Unix socket; a worker process (apps/worker/src/main.ts) runs the moves
// between two real agents over mutual TLS, against real PostgreSQL and Redis. Driven over the socket as
// `curl --unix-socket` does, and compared with what `slipway-admin … --json` prints: the same JSON.
// Workspaces here hold no deployed app (testing/src/fleet/moves.fleet.spec.ts moves running apps and databases).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDb, type Db } from '@slipway/db';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import { dropRedisPrefix, insertNode, testEnv, uniquePrefix, waitFor } from '@slipway/testing/worker';
import { socketRequest } from './socket-request';

jest.setTimeout(240_000);

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');
const ADMIN_BIN = path.join(ROOT, 'apps/cli/bin/slipway-admin');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

interface MoveJson {
  id: string;
  workspace: string;
  workspaceId: string;
  from: string;
  to: string;
  state: string;
  error: string | null;
  steps: { step: string; outcome: string; sentence: string; at: string }[];
}

/** An app's main.ts from source, as its bin script runs it when no bundle is built (decision 0001); output kept for failures. */
function startProcess(main: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [TSX, path.join(ROOT, main)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

describe('the operator API on the API process’s Unix socket moves workspaces between two real agents', () => {
  let database: TestDatabase;
  let db: Db;
  let caDir: string;
  let a: TestAgent;
  let b: TestAgent;
  let api: ReturnType<typeof startProcess>;
  let worker: ReturnType<typeof startProcess>;
  let env: Record<string, string>;
  let socket: string;
  let planId: string;
  let nodeA: string;
  let nodeB: string;
  const prefix = uniquePrefix('operator');
  const redis = createRedisConnection(TEST_SERVICES.redisUrl);
  const queue = new BullJobQueue({ connection: redis, prefix });

  const call = (method: string, p: string, body?: unknown) => socketRequest(socket, method, p, body);
  async function admin(...args: string[]): Promise<unknown> {
    const { stdout, stderr } = await run(ADMIN_BIN, [...args, '--json'], { env: { ...process.env, ...env } });
    expect(stderr).toBe('');
    return JSON.parse(stdout);
  }
  const ended = (id: string) =>
    waitFor(
      async () => {
        const { body } = await call('GET', `/v1/moves/${id}`);
        return ['succeeded', 'failed', 'cancelled'].includes((body as MoveJson).state) ? (body as MoveJson) : null;
      },
      90_000,
      `move ${id} to end`,
    );
  const workspace = async (slug: string, nodeId: string) =>
    db.workspace.create({ data: { name: slug, slug: `${slug}-${randomUUID().slice(0, 6)}`, planId, nodeId, trialEndsAt: new Date(), graceEndsAt: new Date(Date.now() + 86_400_000) } });
  // A server's disk is null until its first health check records it (every second here): the node lists once both
  // have theirs, so two reads cannot straddle that first record.
  const bothDisksRecorded = () =>
    waitFor(
      async () => {
        const answer = await call('GET', '/v1/nodes');
        const nodes = (answer.body as { data?: { disk: unknown }[] }).data ?? [];
        return answer.status !== 200 || (nodes.length === 2 && nodes.every((n) => n.disk !== null)) ? answer : null;
      },
      30_000,
      'both servers’ disk figures to be recorded',
    );
  const nodeOf = async (workspaceId: string) => (await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).nodeId;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const opened = await openTestCa();
    caDir = opened.dir;
    a = await startTestAgent(opened.ca, { nodeName: 'op-a' });
    b = await startTestAgent(opened.ca, { nodeName: 'op-b' });
    nodeA = (await insertNode(db, a)).id;
    nodeB = (await insertNode(db, b)).id;
    planId = (
      await db.plan.create({ data: { slug: `p-${randomUUID()}`, version: 1, name: 'P', kind: 'trial', priceCents: 0, currency: 'EUR', cpuMillis: 1000, memoryMb: 1024, maxMembers: 1 } })
    ).id;
    // No SLIPWAY_OPERATOR_SOCKET: the default, operator.sock in the data folder.
    env = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir, extra: { SLIPWAY_API_PORT: '0', SLIPWAY_LOG_LEVEL: 'warn' } });
    socket = path.join(caDir, 'operator.sock');
    worker = startProcess('apps/worker/src/main.ts', env);
    api = startProcess('apps/api/src/main.ts', env);
    await waitFor(
      async () => {
        if (api.child.exitCode !== null) throw new Error(`the API ended (${api.child.exitCode}): ${api.output()}`);
        return (await lstat(socket).catch(() => null))?.isSocket() ?? false;
      },
      120_000,
      'the API to open its operator socket',
    );
  });

  afterAll(async () => {
    await stopProcess(api?.child);
    await stopProcess(worker?.child);
    await queue.close();
    redis.disconnect();
    await a?.stop();
    await b?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  it('is a Unix socket of mode 0600 owned by the API’s user, at its default path in SLIPWAY_DATA_DIR', async () => {
    const file = await lstat(socket);
    expect({ socket: file.isSocket(), mode: (file.mode & 0o777).toString(8), uid: file.uid }).toEqual({ socket: true, mode: '600', uid: process.getuid!() });
  });

  it('lists the servers as `slipway-admin nodes --json` does', async () => {
    const { status, body } = await bothDisksRecorded();
    expect(status).toBe(200);
    const listed = (body as { data: Record<string, unknown>[] }).data;
    expect(listed.map((n) => ({ name: n.name, status: n.status, cordoned: n.cordoned }))).toEqual([
      { name: 'op-a', status: 'online', cordoned: false },
      { name: 'op-b', status: 'online', cordoned: false },
    ]);
    // The same view; the health checks (every second here) move lastSeenAt and the free disk, the metrics collection `used`.
    const moving = ({ lastSeenAt: _seen, used: _used, disk, ...rest }: Record<string, unknown>) => ({ ...rest, disk: { ...(disk as object), freeMb: expect.any(Number) } });
    expect(((await admin('nodes')) as Record<string, unknown>[]).map(moving)).toEqual(listed.map(moving));
  });

  it('moves a workspace A → B, every step readable by id and in the list, the same JSON as slipway-admin', async () => {
    const w = await workspace('moved', nodeA);
    const asked = await call('POST', `/v1/workspaces/${w.slug}/move`, { to: 'op-b' });
    expect(asked).toMatchObject({ status: 202, body: { workspace: w.slug, workspaceId: w.id, from: 'op-a', to: 'op-b', state: 'queued', reason: 'operator', steps: [] } });
    const id = (asked.body as MoveJson).id;
    const done = await ended(id);
    expect({ state: done.state, error: done.error }).toEqual({ state: 'succeeded', error: null });
    expect(await nodeOf(w.id)).toBe(nodeB);
    // Every step recorded with its outcome and sentence (the list itself is move-runner.ts's; decision 0037).
    const lines = done.steps.map((s) => `${s.step} ${s.outcome}`);
    expect({ first: lines[0], last: lines.at(-1), switched: lines.includes('switch done'), failed: lines.filter((l) => /failed|undone/.test(l)) }).toEqual({
      first: 'check done',
      last: 'clean-source done',
      switched: true,
      failed: [],
    });
    expect(done.steps.map((s) => ({ sentence: s.sentence.length > 0, at: new Date(s.at).toISOString() }))).toEqual(done.steps.map((s) => ({ sentence: true, at: s.at })));
    expect(done.steps.find((s) => s.step === 'switch')!.sentence).toBe('The workspace, its 0 apps and 0 databases are on op-b now');
    const listed = await call('GET', `/v1/moves?workspace=${w.id}&limit=5`);
    expect(listed).toMatchObject({ status: 200, body: { data: [done] } });
    expect(await admin('moves', 'show', id)).toEqual(done);
    expect(await admin('moves', '--workspace', w.id)).toEqual((listed.body as { data: MoveJson[] }).data);
  });

  it('refuses in words: unknown workspace, server or move 404, not possible now 409, bad input 400', async () => {
    const w = await workspace('refused', nodeA);
    expect(await call('POST', '/v1/workspaces/no-such-workspace/move', { to: 'op-b' })).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'No live workspace has the id or slug "no-such-workspace"' } },
    });
    expect(await call('POST', `/v1/workspaces/${w.slug}/move`, { to: 'nowhere' })).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No server is enrolled as "nowhere"' } } });
    expect(await call('POST', `/v1/workspaces/${w.id}/move`, { to: 'op-a' })).toMatchObject({ status: 409, body: { error: { code: 'invalid_state', message: 'The workspace is already on op-a' } } });
    expect(await call('POST', `/v1/workspaces/${w.slug}/move`, { to: 'op-b', when: 'now' })).toMatchObject({
      status: 400,
      body: { error: { code: 'validation_failed', message: 'The request body is invalid', details: [{ field: '/when', message: 'is not allowed' }] } },
    });
    expect(await call('POST', '/v1/nodes/nowhere/cordon')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No server is enrolled as "nowhere"' } } });
    expect(await call('POST', '/v1/nodes/nowhere/drain')).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No server is enrolled as "nowhere"' } } });
    const unknown = randomUUID();
    expect(await call('GET', `/v1/moves/${unknown}`)).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: `No move has the id ${unknown}` } } });
    expect(await call('POST', `/v1/moves/${unknown}/cancel`)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(await call('GET', '/v1/moves?limit=10001')).toMatchObject({ status: 400, body: { error: { code: 'validation_failed', details: [{ field: '/query/limit', message: 'must be <= 10000' }] } } });

    // A cordoned target takes nothing; uncordoned, it does again.
    expect(await call('POST', '/v1/nodes/op-b/cordon')).toMatchObject({ status: 200, body: { name: 'op-b', cordoned: true } });
    expect(await call('POST', `/v1/workspaces/${w.slug}/move`, { to: 'op-b' })).toMatchObject({
      status: 409,
      body: { error: { code: 'invalid_state', message: 'op-b is cordoned: it takes no workspace (uncordon it first)' } },
    });
    expect(await call('POST', '/v1/nodes/op-b/uncordon')).toEqual(expect.objectContaining({ status: 200, body: { name: 'op-b', cordoned: false, cordonedAt: null } }));
    expect(await nodeOf(w.id)).toBe(nodeA);
  });

  it('cancels a queued move at once, then refuses to cancel it again (409)', async () => {
    const w = await workspace('cancelled', nodeA);
    await queue.queue('maintenance').pause();
    try {
      const asked = await call('POST', `/v1/workspaces/${w.slug}/move`, { to: 'op-b' });
      const id = (asked.body as MoveJson).id;
      expect(await call('POST', `/v1/moves/${id}/cancel`)).toMatchObject({ status: 200, body: { id, state: 'cancelled', error: 'Cancelled before it started', cancelRequested: false } });
      expect(await call('POST', `/v1/moves/${id}/cancel`)).toMatchObject({
        status: 409,
        body: { error: { code: 'invalid_state', message: `The move ${id} has already ended (cancelled); there is nothing to cancel` } },
      });
    } finally {
      await queue.queue('maintenance').resume();
    }
    expect(await nodeOf(w.id)).toBe(nodeA);
  });

  it('drains a server: cordons it and moves every workspace on it to the other, one at a time', async () => {
    const left = await db.workspace.findMany({ where: { nodeId: nodeA, deletedAt: null }, select: { id: true } });
    expect(left.length).toBeGreaterThanOrEqual(2);
    const drained = await call('POST', '/v1/nodes/op-a/drain');
    expect(drained).toMatchObject({ status: 202, body: { node: 'op-a', cordoned: true, unplaced: [] } });
    const moves = (drained.body as { moves: MoveJson[] }).moves;
    expect(moves.map((m) => ({ to: m.to, state: m.state })).sort((x, y) => x.to.localeCompare(y.to))).toEqual(left.map(() => ({ to: 'op-b', state: 'queued' })));
    for (const m of moves) expect((await ended(m.id)).state).toBe('succeeded');
    for (const w of left) expect(await nodeOf(w.id)).toBe(nodeB);
    const a = ((await call('GET', '/v1/nodes')).body as { data: { name: string; cordoned: boolean; placed: { workspaces: number } }[] }).data.find((n) => n.name === 'op-a');
    expect(a).toMatchObject({ cordoned: true, placed: { workspaces: 0 } });
    // Draining again queues nothing: nothing is left there.
    expect(await call('POST', '/v1/nodes/op-a/drain')).toMatchObject({ status: 202, body: { node: 'op-a', cordoned: true, moves: [], unplaced: [] } });
  });
});
