import { existsSync } from 'node:fs';
import path from 'node:path';
import { createWorkspace, signUp, uniqueEmail, type ApiClient } from '@slipway/testing';
import { inNetwork, TEST_DATABASE_IMAGES, until } from '@slipway/testing/databases';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { imagePresent, requires } from '@slipway/testing/skips';

jest.setTimeout(240_000);

// MongoDB is available exactly where its official image is present (docker load): the 503 path runs where it is not.
const MONGO_PRESENT = imagePresent(TEST_DATABASE_IMAGES.mongodb);
const MONGO_HERE = MONGO_PRESENT ? 'present' : 'absent';
const withoutMongo = requires({ met: !MONGO_PRESENT, reason: `${TEST_DATABASE_IMAGES.mongodb} is on this machine, so MongoDB is available` }).it;

// Issue 12: every error a user can cause has its code (400, 402, 403, 404, 409, 503), MongoDB without its image
// answers 503 and reserves nothing, and reconciliation brings databases back to their desired state without ever
// erasing the data of a database whose row exists. Redis keeps it quick (it starts in about a second).
describe('managed databases: rules, errors and reconciliation', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'databases-rules' });
    // The engines read shows what the agent said at its last health check (issue 34): one check now.
    await p.worker.services.nodes.checkHealth();
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const dbPath = (w: string, id = '') => `/v1/workspaces/${w}/databases${id ? `/${id}` : ''}`;
  const get = async (w: string, id: string) => (await client.get(dbPath(w, id))).body as { status: string; statusMessage: string | null };
  const settled = (w: string, id: string, status: string) =>
    until(() => get(w, id), (d) => d.status === status || d.status === 'failed', 90_000).then((d) => expect({ status: d.status, statusMessage: d.statusMessage }).toEqual({ status, statusMessage: null }));
  const usage = async (w: string) => (await client.get(`/v1/workspaces/${w}/plan`)).body.usage as { cpuMillis: number; memoryMb: number; diskMb: number };
  const errorOf = (res: { status: number; body: { error?: { code: string } } }) => ({ status: res.status, code: res.body.error?.code });
  const redis = async (w: string, name: string) => {
    const res = await client.post(dbPath(w), { name, engine: 'redis', memoryMb: 64 });
    expect(res.status).toBe(201);
    return res.body as { id: string; slug: string };
  };

  /** The running container of the database other than `firstId`; else null, after one reconcile pass of the node. */
  const replacement = async (databaseId: string, firstId: string) => {
    const [c] = await p.docker.listContainers({ all: true, filters: { label: [`slipway.database=${databaseId}`] } });
    if (c?.Id !== firstId && c?.State === 'running') return c;
    const report = await p.worker.services.reconcile.compareAll(`test-${Date.now()}`, ['database']);
    if (report.failed.length > 0) throw new Error(`the reconcile pass failed: ${JSON.stringify(report.failed)}`);
    return null;
  };

  it(`lists the engines; MongoDB is available exactly when ${TEST_DATABASE_IMAGES.mongodb} is present (here: ${MONGO_HERE})`, async () => {
    const engines = await p.client().get('/v1/database-engines');
    expect(engines.status).toBe(200);
    const by = Object.fromEntries((engines.body.data as { engine: string; checkedAt: string }[]).map((e) => [e.engine, e]));
    expect(Object.keys(by).sort()).toEqual(['mongodb', 'mysql', 'postgres', 'redis']);
    expect(by.postgres).toMatchObject({ available: true, image: TEST_DATABASE_IMAGES.postgres, reason: null, defaultVersion: expect.any(String) });
    expect(by.redis).toMatchObject({ available: true });
    expect(by.mongodb).toMatchObject({ available: MONGO_PRESENT, image: TEST_DATABASE_IMAGES.mongodb });
    expect(Date.parse(by.postgres!.checkedAt)).toBeGreaterThan(Date.now() - 5 * 60_000);
  });

  withoutMongo('MongoDB without its image: listed with the reason, creating it is 503 engine_unavailable and reserves nothing', async () => {
    const engines = await p.client().get('/v1/database-engines');
    expect((engines.body.data as { engine: string }[]).find((e) => e.engine === 'mongodb')).toMatchObject({ available: false, reason: expect.stringContaining('docker') });
    const before = await usage(ws.id);
    const res = await client.post(dbPath(ws.id), { name: 'docs', engine: 'mongodb', memoryMb: 512 });
    expect(errorOf(res)).toEqual({ status: 503, code: 'engine_unavailable' });
    expect(res.body.error.message).toContain(TEST_DATABASE_IMAGES.mongodb);
    expect(res.body.error.message).toContain('docker load');
    expect(await usage(ws.id)).toEqual(before);
    expect((await client.get(dbPath(ws.id))).body.data).toEqual([]);
  });

  it('refuses bad input with its code', async () => {
    const bad = async (body: unknown) => errorOf(await client.post(dbPath(ws.id), body));
    expect(await bad({ name: 'x', engine: 'oracle', memoryMb: 256 })).toEqual({ status: 400, code: 'validation_failed' });
    const version = await client.post(dbPath(ws.id), { name: 'x', engine: 'postgres', memoryMb: 256, version: '9.6' });
    expect(errorOf(version)).toEqual({ status: 400, code: 'validation_failed' });
    expect(version.body.error.details).toEqual([{ field: '/version', message: expect.stringContaining('17') }]);
    const small = await client.post(dbPath(ws.id), { name: 'x', engine: 'mysql', memoryMb: 128 });
    expect(errorOf(small)).toEqual({ status: 400, code: 'validation_failed' });
    expect(small.body.error.details).toEqual([{ field: '/memoryMb', message: 'must be at least 512 for mysql' }]);
    expect(await bad({ name: 'x', engine: 'redis', memoryMb: 64, cpuMillis: 10 })).toEqual({ status: 400, code: 'validation_failed' });
    expect(await bad({ name: 'x', engine: 'redis', memoryMb: 64, colour: 'red' })).toEqual({ status: 400, code: 'validation_failed' });
    expect(await bad({ name: 'x', engine: 'redis', memoryMb: 64_000 })).toEqual({ status: 402, code: 'quota_exceeded' });
    expect(await usage(ws.id)).toEqual({ cpuMillis: 0, memoryMb: 0, diskMb: 0, members: 1 });
  });

  it('answers 409 for a taken name, a busy database and the wrong state; 404 for what is not the workspace’s', async () => {
    const db = await redis(ws.id, 'Cache');
    expect(errorOf(await client.post(dbPath(ws.id), { name: 'cache', engine: 'redis', memoryMb: 64 }))).toEqual({ status: 409, code: 'name_taken' });
    // Provisioning: a rotation or a resize waits for it.
    expect(errorOf(await client.post(`${dbPath(ws.id, db.id)}/rotate-password`))).toEqual({ status: 409, code: 'database_busy' });
    expect(errorOf(await client.patch(dbPath(ws.id, db.id), { memoryMb: 96 }))).toEqual({ status: 409, code: 'database_busy' });
    await settled(ws.id, db.id, 'running');
    // Public access: at least one range, valid ranges only, host bits refused with the range named.
    const pub = (body: unknown) => client.put(`${dbPath(ws.id, db.id)}/public`, body);
    expect(errorOf(await pub({ enabled: true }))).toEqual({ status: 400, code: 'validation_failed' });
    expect(errorOf(await pub({ enabled: true, allowedCidrs: ['10.0.0.0/33'] }))).toEqual({ status: 400, code: 'validation_failed' });
    expect(errorOf(await pub({ enabled: true, allowedCidrs: ['::/129'] }))).toEqual({ status: 400, code: 'validation_failed' });
    const hostBits = await pub({ enabled: true, allowedCidrs: ['10.0.0.1/8'] });
    expect(hostBits.body.error.details).toEqual([{ field: '/allowedCidrs/0', message: 'has host bits set; the range is 10.0.0.0/8' }]);
    const v6 = await pub({ enabled: true, allowedCidrs: ['2001:DB8::/32', '192.168.1.0/24', '192.168.1.0/24'] });
    expect(v6.body.public).toMatchObject({ enabled: true, allowedCidrs: ['2001:db8::/32', '192.168.1.0/24'] });
    expect((await pub({ enabled: false })).body.public.enabled).toBe(false);
    // Connect: an app of another workspace, or none, is 404.
    const otherWs = await createWorkspace(client);
    const foreign = await client.post(`/v1/workspaces/${otherWs.id}/apps`, { name: 'foreign', kind: 'worker', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(foreign.status).toBe(201);
    expect(errorOf(await client.post(`${dbPath(ws.id, db.id)}/connect`, { appId: foreign.body.id }))).toEqual({ status: 404, code: 'not_found' });
    expect(errorOf(await client.post(`${dbPath(ws.id, db.id)}/connect`, { appId: '01936f3e-8a2b-7c4d-9e0f-123456789abc' }))).toEqual({ status: 404, code: 'not_found' });
    // The database of another workspace is not found there.
    expect(errorOf(await client.get(dbPath(otherWs.id, db.id)))).toEqual({ status: 404, code: 'not_found' });
    // Viewers read databases, never their credentials.
    const viewer = p.client();
    const { email } = await signUp(viewer, { email: uniqueEmail('viewer') });
    expect((await client.post(`/v1/workspaces/${ws.id}/members`, { email, role: 'viewer' })).status).toBe(201);
    expect((await viewer.get(dbPath(ws.id, db.id))).status).toBe(200);
    expect(errorOf(await viewer.get(`${dbPath(ws.id, db.id)}/connection`))).toEqual({ status: 403, code: 'forbidden' });
    expect(errorOf(await viewer.post(`${dbPath(ws.id, db.id)}/stop`))).toEqual({ status: 403, code: 'forbidden' });
    // Stopped: a rotation is the wrong state.
    await client.post(`${dbPath(ws.id, db.id)}/stop`);
    await settled(ws.id, db.id, 'stopped');
    expect(errorOf(await client.post(`${dbPath(ws.id, db.id)}/rotate-password`))).toEqual({ status: 409, code: 'invalid_state' });
    // Rename keeps the slug (and with it the host connected apps use).
    const renamed = await client.patch(dbPath(ws.id, db.id), { name: 'Sessions' });
    expect(renamed.body).toMatchObject({ name: 'Sessions', slug: 'cache', internalHost: 'cache.internal' });
    // Deleting: every further intent is the wrong state; the row goes once container and data are erased.
    expect((await client.delete(dbPath(ws.id, db.id))).body).toEqual({ ok: true });
    const deleting = await client.get(dbPath(ws.id, db.id));
    const start = await client.post(`${dbPath(ws.id, db.id)}/start`);
    // While it runs the row says deleting and a start is the wrong state; the deletion may also finish first (404).
    const gone = { status: 404, code: expect.any(String) };
    expect([
      { row: [200, 'deleting'], start: { status: 409, code: 'invalid_state' } },
      { row: [200, 'deleting'], start: gone },
      { row: [404, undefined], start: gone },
    ]).toContainEqual({ row: [deleting.status, deleting.body.status], start: errorOf(start) });
    await until(async () => (await client.get(dbPath(ws.id, db.id))).status, (s) => s === 404, 60_000);
    expect(existsSync(path.join(p.agent.dataDir, 'databases', db.id))).toBe(false);
  });

  it('the intent accepted last wins; public ports are unique on the server', async () => {
    const w = await createWorkspace(client);
    const db = await redis(w.id, 'intents');
    // Stop, start, stop, start sent together: the answer with the highest generation is the winner, and the database
    // ends as it asked, whatever order the jobs ran in.
    const answers = await Promise.all(['stop', 'start', 'stop', 'start', 'stop'].map((a) => client.post(`${dbPath(w.id, db.id)}/${a}`)));
    for (const a of answers) expect(a.status).toBe(200);
    const last = answers.map((a) => a.body as { generation: number; desiredState: string }).sort((x, y) => y.generation - x.generation)[0]!;
    expect(new Set(answers.map((a) => a.body.generation)).size).toBe(answers.length);
    expect(['running', 'stopped']).toContain(last.desiredState);
    await settled(w.id, db.id, last.desiredState);
    const [container] = await p.docker.listContainers({ all: true, filters: { label: [`slipway.database=${db.id}`] } });
    expect(container?.State === 'running').toBe(last.desiredState === 'running');
    expect((await client.get(dbPath(w.id, db.id))).body).toMatchObject({ desiredState: last.desiredState, generation: last.generation });

    // Two databases of the server with public access get two ports of 20000–20999; disabling releases one (null), and
    // a PUT on a database that has its port keeps it.
    const other = await redis(w.id, 'second');
    const [a, b] = await Promise.all([db.id, other.id].map((id) => client.put(`${dbPath(w.id, id)}/public`, { enabled: true, allowedCidrs: ['127.0.0.1/32'] })));
    expect(a!.body.public.port).not.toBe(b!.body.public.port);
    for (const port of [a!.body.public.port, b!.body.public.port]) {
      expect(port).toBeGreaterThanOrEqual(20000);
      expect(port).toBeLessThanOrEqual(20999);
    }
    expect((await client.put(`${dbPath(w.id, db.id)}/public`, { enabled: false })).body.public.port).toBeNull();
    const again = await client.put(`${dbPath(w.id, other.id)}/public`, { enabled: true, allowedCidrs: ['127.0.0.1/32'] });
    expect(again.body.public.port).toBe(b!.body.public.port);
    for (const id of [db.id, other.id]) await client.delete(dbPath(w.id, id));
  });

  it('reconciliation recreates a container removed by hand on its data, keeps a stopped one stopped, and workspace deletion erases databases', async () => {
    const w = await createWorkspace(client);
    const db = await redis(w.id, 'kept');
    await settled(w.id, db.id, 'running');
    const url = (await client.get(`${dbPath(w.id, db.id)}/connection`)).body.url as string;
    const cli = (script: string) => inNetwork(p.docker, { image: TEST_DATABASE_IMAGES.redis, workspaceId: w.id, platformId: p.agent.agent.platformId, script, env: { URL: url } });
    expect((await cli('redis-cli -u "$URL" --no-auth-warning SET survivor yes && redis-cli -u "$URL" --no-auth-warning SAVE')).code).toBe(0);
    const containers = () => p.docker.listContainers({ all: true, filters: { label: [`slipway.database=${db.id}`] } });

    // Removed by hand: the next pass recreates it on the same data.
    const [first] = await containers();
    await p.docker.getContainer(first!.Id).remove({ force: true });
    // The exit event may repair it first (the worker compares a database whose container exited at once); a pass
    // does otherwise. Either way: a new container, on the same data.
    const second = await until(() => replacement(db.id, first!.Id), (c) => c !== null, 60_000, 500);
    expect(second?.Id).not.toBe(first!.Id);
    expect(second?.State).toBe('running');
    // Running is not yet accepting connections: the engine loads its data first.
    const read = await until(() => cli('redis-cli -u "$URL" --no-auth-warning GET survivor'), (r) => r.output === 'yes', 30_000, 500);
    expect(read.output).toBe('yes');
    // The status follows within seconds (the repair settles it once the engine answers its readiness check).
    expect(await until(() => get(w.id, db.id), (d) => d.status === 'running', 5_000, 250)).toMatchObject({ status: 'running' });

    // Stopped on request: a pass leaves it stopped; the data folder is never touched.
    await client.post(`${dbPath(w.id, db.id)}/stop`);
    await settled(w.id, db.id, 'stopped');
    const quiet = await p.worker.services.reconcile.compareAll(`test-${Date.now()}`, ['database']);
    expect(quiet.repairs.filter((r) => r.id === db.id)).toEqual([]);
    expect((await containers())[0]?.State).not.toBe('running');
    expect(existsSync(path.join(p.agent.dataDir, 'databases', db.id))).toBe(true);

    // Deleting the workspace erases its databases: container, data and row.
    expect((await client.delete(`/v1/workspaces/${w.id}`)).status).toBe(200);
    await until(async () => (await containers()).length + Number(existsSync(path.join(p.agent.dataDir, 'databases', db.id))), (n) => n === 0, 60_000);
    expect(await p.db.database.count({ where: { id: db.id } })).toBe(0);
  });
});
