// Issue 32: `slipway-admin workspaces move`, `moves`, `moves cancel` and `nodes drain` against real PostgreSQL, Redis,
// a real worker runtime (the `workspace.move` job under the workspace's lock) and two real agents over mutual TLS.
// Workspaces here hold no deployed app (the fleet spec moves running apps and databases); one whose database is being
// restored is refused in words.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import type { Logger } from '@slipway/core';
import { createDb, type Db } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { startWorkerRuntime, type WorkerRuntime } from '@slipway/worker';
import { dropRedisPrefix, insertNode, testConfig, testEnv, uniquePrefix, waitFor } from '@slipway/testing/worker';

jest.setTimeout(180_000);

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../bin/slipway-admin');
const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

describe('slipway-admin moves a workspace between two real agents', () => {
  let database: TestDatabase;
  let db: Db;
  let caDir: string;
  let a: TestAgent;
  let b: TestAgent;
  let runtime: WorkerRuntime;
  let env: Record<string, string>;
  let planId: string;
  let nodeA: string;
  let nodeB: string;
  const prefix = uniquePrefix('moves');

  async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(BIN, args, { env: { ...process.env, ...env } });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  }
  const adminJson = async (...args: string[]) => {
    const r = await admin(...args, '--json');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(r.stdout);
  };
  const ended = (id: string) =>
    waitFor(
      async () => {
        const m = await db.move.findUnique({ where: { id } });
        return m && ['succeeded', 'failed', 'cancelled'].includes(m.state) ? m : null;
      },
      60_000,
      `move ${id} to end`,
    );
  const workspace = async (slug: string, nodeId: string) =>
    db.workspace.create({ data: { name: slug, slug: `${slug}-${randomUUID().slice(0, 6)}`, planId, nodeId, trialEndsAt: new Date(), graceEndsAt: new Date(Date.now() + 86_400_000) } });

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const opened = await openTestCa();
    caDir = opened.dir;
    a = await startTestAgent(opened.ca, { nodeName: 'move-a' });
    b = await startTestAgent(opened.ca, { nodeName: 'move-b' });
    nodeA = (await insertNode(db, a)).id;
    nodeB = (await insertNode(db, b)).id;
    planId = (
      await db.plan.create({ data: { slug: `p-${randomUUID()}`, version: 1, name: 'P', kind: 'trial', priceCents: 0, currency: 'EUR', cpuMillis: 1000, memoryMb: 1024, maxMembers: 1 } })
    ).id;
    env = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir });
    runtime = await startWorkerRuntime(testConfig(env), quiet, { events: false, schedule: false });
  });

  afterAll(async () => {
    await runtime?.close();
    await a?.stop();
    await b?.stop();
    await db?.$disconnect();
    await database?.drop();
    await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
    await rm(caDir, { recursive: true, force: true });
  });

  it('moves an empty workspace A → B, every step recorded and shown by `moves` and `moves show`', async () => {
    const w = await workspace('empty', nodeA);
    const asked = await adminJson('workspaces', 'move', w.slug, '--to', 'move-b');
    expect(asked).toMatchObject({ workspace: w.slug, from: 'move-a', to: 'move-b', state: 'queued', reason: 'operator' });
    const row = await ended(asked.id);
    expect({ state: row.state, error: row.error }).toEqual({ state: 'succeeded', error: null });
    expect((await db.workspace.findUniqueOrThrow({ where: { id: w.id } })).nodeId).toBe(nodeB);

    const [listed] = await adminJson('moves', '--workspace', w.id);
    expect(listed.steps.map((s: { step: string; outcome: string }) => `${s.step} ${s.outcome}`)).toEqual([
      'check done',
      'copy-images skipped',
      'copy-folders skipped',
      'copy-certificates skipped',
      'start-target skipped',
      'copy-backups skipped',
      'move-databases skipped',
      'switch done',
      'routes done',
      'stop-source skipped',
      'catch-up-folders skipped',
      'clean-source done',
    ]);
    expect(listed.steps.at(-1).sentence).toMatch(/^Removed from move-a: \d+ containers?, \d+ images?, \d+ networks?, 0 databases' data, 0 backup folders$/);
    expect((await admin('moves')).stdout).toMatch(new RegExp(`${asked.id}\\s+${w.slug}\\s+move-a\\s+move-b\\s+succeeded\\s+operator\\s+clean-source done`));
    expect((await admin('moves', 'show', asked.id)).stdout).toMatch(/switch\s+done\s+The workspace, its 0 apps and 0 databases are on move-b now/);
  });

  it('refuses to move a workspace whose database is being restored, says why, and leaves it on its source', async () => {
    const w = await workspace('busy', nodeA);
    await db.database.create({
      data: {
        workspaceId: w.id,
        nodeId: nodeA,
        name: 'db',
        slug: 'db',
        engine: 'postgres',
        version: '15',
        cpuMillis: 250,
        memoryMb: 256,
        diskMb: 1024,
        username: 'u',
        databaseName: 'app',
        passwordSealed: 'sealed',
        status: 'restoring',
      },
    });
    const asked = await adminJson('workspaces', 'move', w.slug, '--to', 'move-b');
    const row = await ended(asked.id);
    expect(row.state).toBe('failed');
    expect(row.error).toBe('check failed: A change of db (restoring) is in progress; move the workspace once it has finished; the workspace stays on its source server as it was');
    expect((await db.workspace.findUniqueOrThrow({ where: { id: w.id } })).nodeId).toBe(nodeA);
  });

  it('refuses bad requests with exit codes: unknown workspace or server 3, same or cordoned server 4, and cancels a queued move', async () => {
    const w = await workspace('refused', nodeA);
    expect((await admin('workspaces', 'move', 'no-such-workspace', '--to', 'move-b')).code).toBe(3);
    expect((await admin('workspaces', 'move', w.slug, '--to', 'nowhere')).code).toBe(3);
    const same = await admin('workspaces', 'move', w.slug, '--to', 'move-a');
    expect({ code: same.code, stderr: same.stderr }).toEqual({ code: 4, stderr: expect.stringMatching(/already on move-a/) });
    expect((await admin('workspaces', 'move', w.slug)).code).toBe(2);

    // A queued move (the workers paused) is cancelled at once; cancelling it again is refused.
    await runtime.jobs.queue('maintenance').pause();
    const asked = await adminJson('workspaces', 'move', w.slug, '--to', 'move-b');
    expect(await adminJson('moves', 'cancel', asked.id)).toMatchObject({ state: 'cancelled', error: 'Cancelled before it started' });
    expect((await admin('moves', 'cancel', asked.id)).code).toBe(4);
    await runtime.jobs.queue('maintenance').resume();
    expect((await db.workspace.findUniqueOrThrow({ where: { id: w.id } })).nodeId).toBe(nodeA);
  });

  it('drains a server: cordons it and moves every workspace on it, one at a time', async () => {
    await db.workspace.updateMany({ where: { nodeId: nodeA, databases: { none: {} } }, data: { deletedAt: new Date() } });
    const one = await workspace('one', nodeA);
    const two = await workspace('two', nodeA);
    const plan = await adminJson('nodes', 'drain', 'move-a');
    expect(plan).toMatchObject({ node: 'move-a', cordoned: true });
    // The workspace with a database is queued too: its move fails in words and the drain goes on.
    expect(plan.moves.map((m: { workspace: string; to: string }) => m.to)).toEqual(plan.moves.map(() => 'move-b'));
    for (const m of plan.moves) await ended(m.id);
    for (const w of [one, two]) expect((await db.workspace.findUniqueOrThrow({ where: { id: w.id } })).nodeId).toBe(nodeB);
    expect((await adminJson('nodes')).find((n: { name: string }) => n.name === 'move-a')).toMatchObject({ cordoned: true });
    const runs = await db.move.findMany({ where: { reason: 'drain' }, orderBy: { startedAt: 'asc' } });
    // One at a time: each started after the one before it finished.
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finishedAt!.getTime());
  });
});
