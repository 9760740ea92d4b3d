// Issue 34, item 1 (decision 0041): credentials and app reads answer from memory, and memory follows every change
// at once: the API's own changes before their answer is written, anyone else's (the worker, slipway-admin, psql) on
// PostgreSQL's notification. Real PostgreSQL, through HTTP; the "other writers" below are plain SQL on another
// connection, which is what the worker's and slipway-admin's writes are to this process.
import { createSqlPool, ReadCache, type SqlPool } from '@slipway/db';
import { createTestDatabase, createWorkspace, signUp, TEST_SERVICES, type ApiClient, type TestDatabase } from '@slipway/testing';
import { startTestApi, type TestApi } from '@slipway/testing/api';
import { waitFor } from '@slipway/testing/worker';

const SOON_MS = 3_000;
const nameOf = async (client: ApiClient, path: string) => ((await client.get(path)).body as { name: string }).name;

describe('reads from memory, dropped on every change (real PostgreSQL, through HTTP)', () => {
  let api: TestApi;
  let reads: ReadCache;
  beforeAll(async () => {
    api = await startTestApi();
    reads = api.services.reads!;
  });
  afterAll(() => api.close());

  async function setup() {
    const owner = api.client();
    const me = await signUp(owner);
    const w = await createWorkspace(owner);
    const res = await owner.post(`/v1/workspaces/${w.id}/apps`, { name: 'web', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
    expect(res.status).toBe(201);
    return { owner, me, w, app: res.body as { id: string; name: string }, appPath: `/v1/workspaces/${w.id}/apps/${res.body.id as string}` };
  }
  const sql = (text: string, ...values: unknown[]) => api.db.$executeRawUnsafe(text, ...values);

  it('listens from the start, and a second read of an app or the list is served from memory', async () => {
    const { owner, w, appPath } = await setup();
    expect(reads.live).toBe(true);
    await owner.get(appPath);
    await owner.get(`/v1/workspaces/${w.id}/apps`);
    const before = reads.stats();
    for (let i = 0; i < 5; i++) {
      expect((await owner.get(appPath)).status).toBe(200);
      expect((await owner.get(`/v1/workspaces/${w.id}/apps`)).status).toBe(200);
    }
    // Each read: the session with its membership, then the app (or the list): 20 hits, no miss.
    expect({ hits: reads.stats().hits - before.hits, misses: reads.stats().misses - before.misses }).toEqual({ hits: 20, misses: 0 });
  });

  it('sees a change another process commits (the worker, slipway-admin) within moments, in the app and the list', async () => {
    const { owner, w, app, appPath } = await setup();
    expect(await nameOf(owner, appPath)).toBe('web');
    await owner.get(`/v1/workspaces/${w.id}/apps`);
    const started = Date.now();
    await sql(`UPDATE apps SET name = 'renamed elsewhere', status = 'running' WHERE id = $1::uuid`, app.id);
    await waitFor(async () => (await nameOf(owner, appPath)) === 'renamed elsewhere', SOON_MS, 'the app read to follow the change');
    const list = (await owner.get(`/v1/workspaces/${w.id}/apps`)).body as { data: { name: string; status: string }[] };
    expect(list.data.map((a) => [a.name, a.status])).toEqual([['renamed elsewhere', 'running']]);
    expect(Date.now() - started).toBeLessThan(SOON_MS);
  });

  it('follows a deployment another process records as current', async () => {
    const { owner, w, app, appPath } = await setup();
    expect(((await owner.get(appPath)).body as { currentDeployment: unknown }).currentDeployment).toBeNull();
    await sql(
      `WITH d AS (INSERT INTO deployments (id, workspace_id, app_id, number, status, source, image, cpu_millis, memory_mb, port, created_at)
                  VALUES (gen_random_uuid(), $1::uuid, $2::uuid, 1, 'live', 'image', 'nginx:1', 250, 128, 80, now()) RETURNING id)
       UPDATE apps SET current_deployment_id = (SELECT id FROM d) WHERE id = $2::uuid`,
      w.id,
      app.id,
    );
    await waitFor(async () => ((await owner.get(appPath)).body as { currentDeployment: { status: string } | null }).currentDeployment?.status === 'live', SOON_MS, 'the current deployment to show');
  });

  it('shows the caller its own change at once: 20 renames, each read right after its answer', async () => {
    const { owner, appPath } = await setup();
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      expect((await owner.patch(appPath, { name: `name ${i}` })).status).toBe(200);
      seen.push(await nameOf(owner, appPath));
    }
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `name ${i}`));
  });

  it('many readers and a writer at once: every read after the last change shows it', async () => {
    const { owner, appPath } = await setup();
    const readers = Array.from({ length: 8 }, () => owner);
    let writing = true;
    const reading = Promise.all(
      readers.map(async (c) => {
        while (writing) expect((await c.get(appPath)).status).toBe(200);
      }),
    );
    for (let i = 0; i < 10; i++) expect((await owner.patch(appPath, { name: `busy ${i}` })).status).toBe(200);
    await sql(`UPDATE apps SET name = 'last word' WHERE id = $1::uuid`, appPath.split('/').at(-1));
    await waitFor(async () => (await nameOf(owner, appPath)) === 'last word', SOON_MS, 'the last change to show');
    writing = false;
    await reading;
    const after = await Promise.all(readers.map((c) => nameOf(c, appPath)));
    expect(after).toEqual(readers.map(() => 'last word'));
  });

  it('signing out refuses the cookie at once; a session revoked elsewhere is refused within moments', async () => {
    const a = await setup();
    expect((await a.owner.get(a.appPath)).status).toBe(200);
    expect((await a.owner.post('/v1/auth/logout', {})).status).toBe(200);
    // The jar dropped the cookie; send the old one again, as a stolen copy would.
    const b = await setup();
    const cookie = b.owner.cookie('svc_session')!;
    const replay = () => fetch(new URL(b.appPath, api.base), { headers: { cookie: `svc_session=${cookie}` } }).then((r) => r.status);
    expect(await replay()).toBe(200);
    await sql(`UPDATE sessions SET revoked_at = now() WHERE user_id = $1::uuid`, b.me.user.id);
    await waitFor(async () => (await replay()) === 401, SOON_MS, 'the revoked session to be refused');
  });

  it('a token revoked through the API is refused at once; one revoked elsewhere within moments', async () => {
    const { owner, w, appPath } = await setup();
    const make = async (name: string) => (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name })).body as { id: string; token: string };
    const first = await make('first');
    const bot = owner.withBearer(first.token);
    expect((await bot.get(appPath)).status).toBe(200);
    expect((await owner.delete(`/v1/workspaces/${w.id}/tokens/${first.id}`)).status).toBe(200);
    expect((await bot.get(appPath)).status).toBe(401);
    const second = await make('second');
    const other = owner.withBearer(second.token);
    // The first use records lastUsedAt (and drops the entry); the second is served from memory.
    expect([(await other.get(appPath)).status, (await other.get(appPath)).status]).toEqual([200, 200]);
    await sql(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1::uuid`, second.id);
    await waitFor(async () => (await other.get(appPath)).status === 401, SOON_MS, 'the revoked token to be refused');
  });

  it('a member removed loses the workspace at once, and one removed elsewhere within moments', async () => {
    const { owner, w, appPath } = await setup();
    const join = async () => {
      const c = api.client();
      const s = await signUp(c);
      expect((await owner.post(`/v1/workspaces/${w.id}/members`, { email: s.email, role: 'developer' })).status).toBe(201);
      expect((await c.get(appPath)).status).toBe(200);
      return { client: c, user: s.user as { id: string } };
    };
    const first = await join();
    expect((await owner.delete(`/v1/workspaces/${w.id}/members/${first.user.id}`)).status).toBe(200);
    expect((await first.client.get(appPath)).status).toBe(404);
    const second = await join();
    await sql(`DELETE FROM memberships WHERE user_id = $1::uuid AND workspace_id = $2::uuid`, second.user.id, w.id);
    await waitFor(async () => (await second.client.get(appPath)).status === 404, SOON_MS, 'the removed member to lose the workspace');
  });

  it('while its listening connection is gone, reads go to PostgreSQL (nothing stale), then it listens again', async () => {
    const { owner, app, appPath } = await setup();
    await owner.get(appPath);
    await api.db.$queryRawUnsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`);
    await waitFor(async () => !reads.live, SOON_MS, 'the cache to know it is not listening');
    await sql(`UPDATE apps SET name = 'changed while deaf' WHERE id = $1::uuid`, app.id);
    expect(await nameOf(owner, appPath)).toBe('changed while deaf');
    await waitFor(async () => reads.live, 10_000, 'the cache to listen again');
    await sql(`UPDATE apps SET name = 'changed after' WHERE id = $1::uuid`, app.id);
    await waitFor(async () => (await nameOf(owner, appPath)) === 'changed after', SOON_MS, 'the change after to show');
  });
});

describe('before any notification arrives: a cache that hears none (real PostgreSQL, through HTTP)', () => {
  // Listening on a channel nobody notifies: what still holds is the API's own doing (reads-follow-writes.ts), with no
  // help from PostgreSQL's notifications, which can arrive after the caller's next request.
  let api: TestApi;
  let pool: SqlPool;
  let deaf: ReadCache;
  beforeAll(async () => {
    pool = createSqlPool(TEST_SERVICES.postgresAdminUrl, { max: 1 });
    deaf = new ReadCache(pool, { channel: 'slipway_reads_unheard' });
    await deaf.start();
    api = await startTestApi({ reads: deaf });
  });
  afterAll(async () => {
    await api.close();
    await deaf.close();
    await pool.end();
  });

  it('shows the caller its own changes at once, and refuses a signed-out cookie, a revoked token, a removed member at once', async () => {
    const owner = api.client();
    await signUp(owner);
    const w = await createWorkspace(owner);
    const created = await owner.post(`/v1/workspaces/${w.id}/apps`, { name: 'web', kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
    const appPath = `/v1/workspaces/${w.id}/apps/${created.body.id as string}`;
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect((await owner.patch(appPath, { name: `name ${i}` })).status).toBe(200);
      seen.push(await nameOf(owner, appPath));
      seen.push(((await owner.get(`/v1/workspaces/${w.id}/apps`)).body as { data: { name: string }[] }).data[0]!.name);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4].flatMap((i) => [`name ${i}`, `name ${i}`]));
    // This cache hears nothing: another process's change stays unseen here (what the notifications are for).
    await api.db.$executeRawUnsafe(`UPDATE apps SET name = 'unheard' WHERE id = $1::uuid`, created.body.id);
    expect(await nameOf(owner, appPath)).toBe('name 4');

    const token = (await owner.post(`/v1/workspaces/${w.id}/tokens`, { name: 'bot' })).body as { id: string; token: string };
    const bot = owner.withBearer(token.token);
    expect([(await bot.get(appPath)).status, (await bot.get(appPath)).status]).toEqual([200, 200]);
    expect((await owner.delete(`/v1/workspaces/${w.id}/tokens/${token.id}`)).status).toBe(200);
    expect((await bot.get(appPath)).status).toBe(401);

    const member = api.client();
    const s = await signUp(member);
    expect((await owner.post(`/v1/workspaces/${w.id}/members`, { email: s.email, role: 'developer' })).status).toBe(201);
    expect([(await member.get(appPath)).status, (await member.get(appPath)).status]).toEqual([200, 200]);
    expect((await owner.delete(`/v1/workspaces/${w.id}/members/${(s.user as { id: string }).id}`)).status).toBe(200);
    expect((await member.get(appPath)).status).toBe(404);

    const cookie = owner.cookie('svc_session')!;
    expect((await owner.post('/v1/auth/logout', {})).status).toBe(200);
    expect((await fetch(new URL(appPath, api.base), { headers: { cookie: `svc_session=${cookie}` } })).status).toBe(401);
  });
});

describe('ReadCache (real PostgreSQL)', () => {
  let database: TestDatabase;
  let pool: SqlPool;
  let cache: ReadCache;
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = createSqlPool(database.url);
    cache = new ReadCache(pool);
  });
  afterAll(async () => {
    await cache.close();
    await pool.end();
    await database.drop();
  });

  let loads = 0;
  /** A load of `{ n }`, tagged ws:x; `dropMidway`: ws:x changes while it runs. */
  const load =
    (opts: { dropMidway?: boolean; until?: number } = {}) =>
    async () => {
      loads++;
      cache.touched(opts.dropMidway ? ['ws:x'] : []);
      return { value: { n: loads }, tags: ['ws:x'], until: opts.until ?? Number.POSITIVE_INFINITY };
    };

  it('keeps nothing a change dropped while it loaded, nothing that was not found, and nothing past its end', async () => {
    await cache.start();
    await cache.read('a', 0, load({ dropMidway: true }));
    await cache.read('a', 0, load());
    expect(loads).toBe(2);
    await cache.read('a', 0, load());
    expect(loads).toBe(2);
    expect(await cache.read('missing', 0, async () => null)).toBeNull();
    expect(cache.stats().entries).toBe(1);
    await cache.read('b', 0, load({ until: 100 }));
    await cache.read('b', 99, load());
    expect(loads).toBe(3);
    await cache.read('b', 100, load());
    expect(loads).toBe(4);
    // A change request reads through and keeps nothing, but notes what it read.
    const touched = new Set<string>();
    const value = await cache.writing(touched, () => cache.read('c', 0, load()));
    expect({ value, touched: [...touched], kept: cache.stats().entries }).toEqual({ value: { n: 5 }, touched: ['ws:x'], kept: 2 });
    // What is kept is frozen: a caller cannot change what the next one reads.
    const kept = (await cache.read('b', 100, load())) as { n: number };
    expect(() => {
      kept.n = 0;
    }).toThrow(TypeError);
  });

  it('holds at most maxEntries, the oldest out first, and a dropped tag leaves nothing behind', async () => {
    const small = new ReadCache(pool, { maxEntries: 2 });
    try {
      await small.start();
      const value = (n: number) => async () => ({ value: { n }, tags: [`t:${n}`, 'all'] });
      for (const n of [1, 2, 3]) await small.read(`k${n}`, 0, value(n));
      expect(small.stats().entries).toBe(2);
      // k1 went first: read again, it loads.
      let loaded = false;
      await small.read('k1', 0, async () => ((loaded = true), { value: { n: 1 }, tags: ['t:1', 'all'] }));
      expect(loaded).toBe(true);
      small.touched(['all']);
      expect(small.stats().entries).toBe(0);
    } finally {
      await small.close();
    }
  });
});
