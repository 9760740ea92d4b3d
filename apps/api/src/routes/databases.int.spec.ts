import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { hostQuery, inNetwork, SCHEMA, TEST_DATABASE_IMAGES, until, type HostTarget, type TestEngine } from '@slipway/testing/databases';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { imagePresent, requires } from '@slipway/testing/skips';

jest.setTimeout(300_000);

// MongoDB has no Debian package and no registry is reachable: its scenario runs where the official image was loaded.
const withMongo = requires({ met: imagePresent(TEST_DATABASE_IMAGES.mongodb), reason: `${TEST_DATABASE_IMAGES.mongodb} is not on this machine (docker load -i mongo.tar to run it)` }).it;

// Issue 12, end to end through HTTP: the real agent runs each engine on the workspace's private network (Docker), the
// real clients (psql, mariadb, redis-cli) talk to it from a container of the workspace and from this machine through
// the public TLS port. The three engines run side by side (test.concurrent): MariaDB alone initialises for ~15 s.
describe('managed databases, end to end', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let caFile: string;
  /** A second workspace with a database of its own (so its private network exists): it must not reach the others. */
  let other: { id: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'databases' });
    client = p.client();
    await signUp(client);
    const ca = await client.get('/v1/database-ca.pem');
    expect(ca.status).toBe(200);
    expect(ca.text).toContain('BEGIN CERTIFICATE');
    caFile = path.join(os.tmpdir(), `slipway-db-ca-${process.pid}.pem`);
    await writeFile(caFile, ca.text);
    other = await createWorkspace(client);
    const created = await client.post(`/v1/workspaces/${other.id}/databases`, { name: 'neighbour', engine: 'redis', memoryMb: 64 });
    expect(created.status).toBe(201);
    await running(other.id, created.body.id);
  });

  afterAll(async () => {
    if (caFile) await rm(caFile, { force: true });
    await p?.close();
  });

  const dbPath = (ws: string, id = '') => `/v1/workspaces/${ws}/databases${id ? `/${id}` : ''}`;
  const running = (ws: string, id: string, status = 'running') =>
    until(
      async () => (await client.get(dbPath(ws, id))).body as { status: string; statusMessage: string | null; generation: number },
      (d) => d.status === status || (d.status === 'failed' && status !== 'failed'),
      120_000,
    ).then((d) => {
      expect({ status: d.status, statusMessage: d.statusMessage }).toEqual({ status, statusMessage: null });
      return d;
    });
  const connection = async (ws: string, id: string) => {
    const res = await client.get(`${dbPath(ws, id)}/connection`);
    expect(res.status).toBe(200);
    return res.body as { host: string; port: number; username: string; password: string; databaseName: string; url: string; publicUrl: string | null };
  };
  /** Polls a statement through the public port until it succeeds (the listener follows the job). */
  const publicTarget = async (ws: string, id: string, tls: HostTarget['tls'] = 'verify'): Promise<HostTarget> => {
    const db = (await client.get(dbPath(ws, id))).body;
    const c = await connection(ws, id);
    return { host: '127.0.0.1', port: db.public.port, username: c.username, password: c.password, databaseName: c.databaseName, tls, caFile };
  };
  const query = async (engine: TestEngine, t: HostTarget, statement: string) => {
    const r = await hostQuery(engine, t, statement);
    if (r.code !== 0) throw new Error(`${statement}: exit ${r.code}: ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const eventually = (engine: TestEngine, t: () => Promise<HostTarget>, statement: string, timeoutMs = 60_000) =>
    until(
      async () => hostQuery(engine, await t(), statement),
      (r) => r.code === 0,
      timeoutMs,
      500,
    ).then((r) => r.stdout);

  // The private network: a client container of the workspace reads and writes with the URL; the other workspace's
  // cannot resolve the name nor reach the address.
  const PRIVATE: Record<TestEngine, (marker: string) => string> = {
    postgres: (m) => `psql "$URL" -X -A -t -v ON_ERROR_STOP=1 -c "CREATE TABLE IF NOT EXISTS private (v text)" -c "INSERT INTO private VALUES ('${m}')" -c "SELECT v FROM private"`,
    mysql: (m) =>
      `mariadb --no-defaults -h "$H" -P "$P" -u "$U" --batch --skip-column-names "$D" -e "CREATE TABLE IF NOT EXISTS private (v text); INSERT INTO private VALUES ('${m}'); SELECT v FROM private"`,
    redis: (m) => `redis-cli -u "$URL" --no-auth-warning SET private ${m} && redis-cli -u "$URL" --no-auth-warning GET private`,
  };
  const PORTS: Record<TestEngine, number> = { postgres: 5432, mysql: 3306, redis: 6379 };
  const MEMORY: Record<TestEngine, number> = { postgres: 256, mysql: 512, redis: 64 };
  /** The variable connect writes into an app. */
  const VARIABLE: Record<TestEngine, string> = { postgres: 'DATABASE_URL', mysql: 'DATABASE_URL', redis: 'REDIS_URL' };
  /** Rows after the three inserts: Redis counts keys, the three and `private`, which the app's container wrote. */
  const BASELINE: Record<TestEngine, string> = { postgres: '3', mysql: '3', redis: '4' };
  const PUBLIC_URL: Record<TestEngine, RegExp> = { postgres: /127\.0\.0\.1:2\d{4}\//, mysql: /127\.0\.0\.1:2\d{4}\//, redis: /^rediss:\/\// };

  test.concurrent.each(['postgres', 'mysql', 'redis'] as const)('%s: create, private network, public TLS, resize, rotate, stop/start, delete', async (engine) => {
    const ws = await createWorkspace(client);
    const usage = async () => (await client.get(`/v1/workspaces/${ws.id}/plan`)).body.usage as { cpuMillis: number; memoryMb: number; diskMb: number };
    const before = await usage();

    // Create → provisioning → running.
    const created = await client.post(dbPath(ws.id), { name: `Main ${engine}`, engine, memoryMb: MEMORY[engine] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ engine, status: 'provisioning', desiredState: 'running', internalHost: `main-${engine}.internal`, port: PORTS[engine], public: { enabled: false } });
    await running(ws.id, id);
    expect(await usage()).toMatchObject({ cpuMillis: before.cpuMillis + created.body.cpuMillis, memoryMb: before.memoryMb + MEMORY[engine], diskMb: before.diskMb + created.body.diskMb });

    const c = await connection(ws.id, id);
    expect(c.password).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(c.host).toBe(`main-${engine}.internal`);
    expect(c.url).toContain(`@main-${engine}.internal:${PORTS[engine]}/`);
    expect(c.publicUrl).toBeNull();

    // connect writes the URL as a secret variable of an app of the workspace.
    const app = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: 'api', kind: 'worker', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(app.status).toBe(201);
    const connected = await client.post(`${dbPath(ws.id, id)}/connect`, { appId: app.body.id });
    expect(connected.body).toEqual({ ok: true, variable: VARIABLE[engine] });
    const env = (await client.get(`/v1/workspaces/${ws.id}/apps/${app.body.id}/env`)).body.data;
    expect(env).toEqual([expect.objectContaining({ key: connected.body.variable, secret: true, value: null })]);

    // A container on the workspace's network reads and writes through <slug>.internal with the URL.
    const u = new URL(c.url);
    const clientEnv = { URL: c.url, H: u.hostname, P: u.port, U: decodeURIComponent(u.username), MYSQL_PWD: decodeURIComponent(u.password), D: u.pathname.slice(1) };
    const inside = await inNetwork(p.docker, { image: TEST_DATABASE_IMAGES[engine], workspaceId: ws.id, platformId: p.agent.agent.platformId, script: PRIVATE[engine]('from-the-app'), env: clientEnv });
    expect(inside).toEqual({ code: 0, output: expect.stringContaining('from-the-app') });

    // Another workspace's container can neither resolve the name nor reach the address.
    const [container] = await p.docker.listContainers({ all: true, filters: { label: [`slipway.database=${id}`] } });
    expect(container).toBeDefined();
    const ip = Object.values(container!.NetworkSettings.Networks)[0]!.IPAddress;
    expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const outside = await inNetwork(p.docker, {
      image: TEST_DATABASE_IMAGES.redis,
      workspaceId: other.id,
      platformId: p.agent.agent.platformId,
      script: `getent hosts main-${engine}.internal && echo RESOLVED; timeout 3 bash -c "echo > /dev/tcp/${ip}/${PORTS[engine]}" && echo REACHED; echo done`,
    });
    expect(outside.output).toContain('done');
    expect(outside.output).not.toMatch(/RESOLVED|REACHED/);

    // Public access over TLS from this machine.
    const enabled = await client.put(`${dbPath(ws.id, id)}/public`, { enabled: true, allowedCidrs: ['127.0.0.0/8'] });
    expect(enabled.status).toBe(200);
    expect(enabled.body.public).toMatchObject({ enabled: true, host: '127.0.0.1', port: expect.any(Number), allowedCidrs: ['127.0.0.0/8'] });
    expect(enabled.body.public.port).toBeGreaterThanOrEqual(20000);
    expect(enabled.body.public.port).toBeLessThanOrEqual(20999);
    const tls = () => publicTarget(ws.id, id);
    await eventually(engine, tls, SCHEMA[engine].ping);
    for (const s of SCHEMA[engine].create) await query(engine, await tls(), s);
    for (const n of [1, 2, 3]) await query(engine, await tls(), SCHEMA[engine].insert(n));
    const baseline = BASELINE[engine];
    expect(await query(engine, await tls(), SCHEMA[engine].count)).toBe(baseline);
    expect((await connection(ws.id, id)).publicUrl).toMatch(PUBLIC_URL[engine]);
    // Without TLS: refused.
    const plain = await hostQuery(engine, await publicTarget(ws.id, id, 'none'), SCHEMA[engine].count);
    expect(plain.code).not.toBe(0);
    // A list that leaves this machine out cuts it at once; putting it back lets it in again.
    expect((await client.put(`${dbPath(ws.id, id)}/public`, { enabled: true, allowedCidrs: ['10.9.9.0/24', '2001:db8::/32'] })).status).toBe(200);
    await until(async () => hostQuery(engine, await tls(), SCHEMA[engine].ping), (r) => r.code !== 0, 30_000, 500);
    expect((await client.put(`${dbPath(ws.id, id)}/public`, { enabled: true, allowedCidrs: ['127.0.0.1'] })).body.public.allowedCidrs).toEqual(['127.0.0.1/32']);
    await eventually(engine, tls, SCHEMA[engine].count, 30_000);

    // Resize: reserved at once, the container recreated on its data (updating → running), rows kept.
    const resized = await client.patch(dbPath(ws.id, id), { memoryMb: MEMORY[engine] + 64 });
    expect(resized.status).toBe(200);
    expect(resized.body).toMatchObject({ status: 'updating', memoryMb: MEMORY[engine] + 64 });
    expect((await usage()).memoryMb).toBe(before.memoryMb + 128 + MEMORY[engine] + 64);
    await running(ws.id, id);
    expect(await eventually(engine, tls, SCHEMA[engine].count)).toBe(baseline);

    // Rotate: the answer comes once the engine has the new password: from then on the old one is refused (at once, no
    // waiting) and the connection shows the new one; rows kept.
    const old = await publicTarget(ws.id, id);
    const rotated = await client.post(`${dbPath(ws.id, id)}/rotate-password`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.status).toBe('running');
    expect((await hostQuery(engine, old, SCHEMA[engine].count)).code).not.toBe(0);
    const fresh = await publicTarget(ws.id, id);
    expect(fresh.password).not.toBe(old.password);
    expect(await query(engine, fresh, SCHEMA[engine].count)).toBe(baseline);
    expect((await hostQuery(engine, old, SCHEMA[engine].count)).code).not.toBe(0);
    // Connected apps keep their variable (spec rule 2): connect again to update it.
    expect((await client.post(`${dbPath(ws.id, id)}/connect`, { appId: app.body.id, variable: 'PRIMARY_DB' })).body).toEqual({ ok: true, variable: 'PRIMARY_DB' });

    // Stop / start: rows kept.
    expect((await client.post(`${dbPath(ws.id, id)}/stop`)).body.desiredState).toBe('stopped');
    await running(ws.id, id, 'stopped');
    expect((await hostQuery(engine, await tls(), SCHEMA[engine].count)).code).not.toBe(0);
    expect((await client.post(`${dbPath(ws.id, id)}/start`)).body.desiredState).toBe('running');
    await running(ws.id, id);
    expect(await eventually(engine, tls, SCHEMA[engine].count)).toBe(baseline);

    // Disabling closes the port.
    const port = (await client.get(dbPath(ws.id, id))).body.public.port as number;
    const disabled = await client.put(`${dbPath(ws.id, id)}/public`, { enabled: false });
    expect(disabled.body.public).toEqual({ enabled: false, host: null, port: null, allowedCidrs: ['127.0.0.1/32'] });
    await until(async () => hostQuery(engine, { ...fresh, port }, SCHEMA[engine].ping), (r) => r.code !== 0, 30_000, 500);

    // Delete: quota back at once; container and data gone; then the row.
    expect((await client.delete(dbPath(ws.id, id))).body).toEqual({ ok: true });
    expect(await usage()).toMatchObject({ cpuMillis: before.cpuMillis + 100, memoryMb: before.memoryMb + 128, diskMb: before.diskMb + 512 });
    await until(async () => (await client.get(dbPath(ws.id, id))).status, (s) => s === 404, 60_000);
    expect(await p.docker.listContainers({ all: true, filters: { label: [`slipway.database=${id}`] } })).toEqual([]);
    expect(existsSync(path.join(p.agent.dataDir, 'databases', id))).toBe(false);
  });

  // MongoDB has no Debian package: the scenario runs where the official image was loaded (`docker load`), and the
  // 503 path is databases-rules.int.spec.ts's. mongosh comes with the image: the client runs in the workspace.
  withMongo('mongodb: create, read and write through <slug>.internal, stop/start, delete', async () => {
    const ws = await createWorkspace(client);
    const created = await client.post(dbPath(ws.id), { name: 'docs', engine: 'mongodb', memoryMb: 512 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await running(ws.id, id);
    const c = await connection(ws.id, id);
    const mongo = (script: string) =>
      inNetwork(p.docker, { image: TEST_DATABASE_IMAGES.mongodb, workspaceId: ws.id, platformId: p.agent.agent.platformId, script: `mongosh "$URL" --quiet --eval '${script}'`, env: { URL: c.url } });
    expect((await mongo('db.items.insertOne({ n: 1 }); print(db.items.countDocuments())')).output).toContain('1');
    await client.post(`${dbPath(ws.id, id)}/stop`);
    await running(ws.id, id, 'stopped');
    await client.post(`${dbPath(ws.id, id)}/start`);
    await running(ws.id, id);
    expect((await mongo('print(db.items.countDocuments())')).output).toContain('1');
    expect((await client.delete(dbPath(ws.id, id))).body).toEqual({ ok: true });
    await until(async () => (await client.get(dbPath(ws.id, id))).status, (s) => s === 404, 60_000);
  });
});
