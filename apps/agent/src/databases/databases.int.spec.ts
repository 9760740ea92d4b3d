// Managed databases on a real agent, real Docker and the real clients (psql, mariadb, redis-cli), through the
// agent's gRPC service: for postgres, mysql (MariaDB stand-in) and redis each — ensure → running; a container on the
// workspace network reads and writes through `<slug>.internal`; a container of another workspace can neither resolve
// nor reach it; public TLS from the host succeeds, plain is refused, a source outside the allowlist (a network
// namespace behind a veth pair) is cut, and let in once the list names it; rotation keeps the rows and the old
// password fails; resize (recreate) and stop/start keep the rows; removal leaves no container and no data.
// MongoDB: without the `mongo` image, `engine_unavailable` naming the image and `docker load`.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { connectionUrl, type DatabaseEngine } from '@slipway/contracts';
import { AppError, LABELS } from '@slipway/core';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, DatabasesPool, type EnsureDatabaseInput } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import { silentLogger } from '@slipway/testing/logger';
import { imagePresent, requires } from '@slipway/testing/skips';
import Docker from 'dockerode';
import { DockerRuntime } from '../containers/docker.runtime';
import { WorkspaceNetworks } from '../containers/networks';
import { DEFAULT_NETWORKS } from '../agent';
import { ENGINES } from './engines';

jest.setTimeout(240_000);

const IMAGES = { postgres: 'slipway/postgres:15', mysql: 'slipway/mariadb:10.11', redis: 'slipway/redis:7.0', mongodb: 'mongo:7' };
// MongoDB has no Debian package and no registry is reachable: its scenario runs where the image was loaded.
const MONGO_PRESENT = imagePresent(IMAGES.mongodb);
const MONGO_HERE = MONGO_PRESENT ? 'present' : 'absent';
const withMongo = requires({ met: MONGO_PRESENT, reason: `${IMAGES.mongodb} is not on this machine (docker load -i mongo.tar to run it)` }).it;
const withoutMongo = requires({ met: !MONGO_PRESENT, reason: `${IMAGES.mongodb} is on this machine, so MongoDB is available` }).it;

function run(cmd: string, args: string[], env: Record<string, string> = {}, timeoutMs = 20_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

async function freePublicPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 1000);
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen({ port, host: '::', ipv6Only: false }, () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** The host-side client of each engine: one query through the public port, TLS verified against the CA or none. */
function publicQuery(engine: DatabaseEngine, o: { host: string; port: number; user: string; db: string; password: string; ca: string; tls: boolean; sql: string; netns?: string }) {
  // The test agent's certificate names 127.0.0.1; from the namespace (another address) only the chain is verified.
  const verifyHost = !o.netns;
  const prefix = o.netns ? ['ip', 'netns', 'exec', o.netns] : [];
  let argv: string[];
  let env: Record<string, string>;
  if (engine === 'postgres') {
    const ssl = o.tls ? `sslmode=${verifyHost ? 'verify-full' : 'verify-ca'} sslrootcert=${o.ca}` : 'sslmode=disable';
    argv = ['psql', `host=${o.host} port=${o.port} user=${o.user} dbname=${o.db} connect_timeout=5 ${ssl}`, '-X', '-tAc', o.sql];
    env = { PGPASSWORD: o.password };
  } else if (engine === 'mysql') {
    const ssl = o.tls ? ['--ssl', `--ssl-ca=${o.ca}`, ...(verifyHost ? ['--ssl-verify-server-cert'] : [])] : ['--skip-ssl'];
    argv = ['mariadb', `-h${o.host}`, `-P${o.port}`, `-u${o.user}`, `-D${o.db}`, '--connect-timeout=5', ...ssl, '-N', '-B', '-e', o.sql];
    env = { MYSQL_PWD: o.password };
  } else {
    const ssl = o.tls ? ['--tls', '--cacert', o.ca] : [];
    argv = ['redis-cli', '-h', o.host, '-p', String(o.port), ...ssl, '--no-auth-warning', ...o.sql.split(' ')];
    env = { REDISCLI_AUTH: o.password };
  }
  const all = [...prefix, ...argv];
  return run(all[0]!, all.slice(1), env, 15_000);
}

/** The text of a multiplexed log (8-byte frame headers: stream, 0, 0, 0, size). */
/** The engine's events of one kind for a container since `sinceMs`, one JSON line each (`docker events`). */
function containerEvents(docker: Docker, containerId: string, event: string, sinceMs: number): Promise<string> {
  const filters = JSON.stringify({ container: [containerId], event: [event] });
  return new Promise((resolve, reject) => {
    docker.getEvents({ since: Math.floor(sinceMs / 1000) - 1, until: Math.ceil(Date.now() / 1000) + 1, filters }, (err, stream) => {
      if (err || !stream) return reject(err ?? new Error('no event stream'));
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve(text));
      stream.on('error', reject);
    });
  });
}

function demux(b: Buffer): string {
  const parts: Buffer[] = [];
  for (let i = 0; i + 8 <= b.length; ) {
    const size = b.readUInt32BE(i + 4);
    parts.push(b.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Nothing listens on the port (the connection is refused). */
function tcpRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

/** A whole line of a client's output. */
const line = (v: string) => new RegExp(`^${v}$`, 'm');

/** SQL (or Redis commands) of the scenario per engine: write rows, count them. */
const SCENARIO: Record<'postgres' | 'mysql' | 'redis', { write: string; count: string; expect: (n: number) => string }> = {
  postgres: { write: 'CREATE TABLE IF NOT EXISTS t (v text); INSERT INTO t VALUES (\'a\'), (\'b\'); SELECT count(*) FROM t', count: 'SELECT count(*) FROM t', expect: (n) => String(n) },
  mysql: { write: 'CREATE TABLE IF NOT EXISTS t (v text); INSERT INTO t VALUES (\'a\'), (\'b\'); SELECT count(*) FROM t', count: 'SELECT count(*) FROM t', expect: (n) => String(n) },
  redis: { write: 'RPUSH t a b', count: 'LLEN t', expect: (n) => String(n) },
};

describe('managed databases on the agent (real Docker, real clients)', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let agents: AgentPool;
  let dbs: DatabasesPool;
  let caFile: string;
  let otherNetworkId: string;
  const workspaceId = randomUUID();
  const otherWorkspaceId = randomUUID();
  // A foreign source address: a network namespace behind a veth pair (10.231.<n>.2 → host 10.231.<n>.1).
  const ns = `slwdb-${randomBytes(3).toString('hex')}`;
  const octet = 100 + Math.floor(Math.random() * 150);
  const hostSide = `10.231.${octet}.1`;
  const nsSide = `10.231.${octet}.2`;
  const vethHost = `vh${ns.slice(6)}`;
  const vethNs = `vn${ns.slice(6)}`;

  const target = () => t.target;
  const op = () => randomUUID();
  /** An Ensure request of this workspace with a fresh id, operation and password; `o` overrides. */
  const request = (o: Partial<EnsureDatabaseInput>): EnsureDatabaseInput => ({
    operationId: op(),
    databaseId: randomUUID(),
    workspaceId,
    slug: 'db',
    engine: 'postgres',
    version: 'test',
    cpuMillis: 500,
    memoryMb: 256,
    username: 'app',
    databaseName: 'appdb',
    password: randomBytes(30).toString('base64url'),
    ...o,
  });

  /** Runs a shell script (no user text in it) in a throwaway container of `image` on a network; env carries secrets. */
  async function inNetwork(networkId: string, image: string, script: string, env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
    const c = await docker.createContainer({
      Image: image,
      Entrypoint: ['sh', '-c', script],
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: { [LABELS.workspace]: 'dbtest-client', [LABELS.platform]: t.agent.platformId },
      HostConfig: { NetworkMode: networkId },
    });
    try {
      await c.start();
      const { StatusCode } = (await c.wait()) as { StatusCode: number };
      const logs = (await c.logs({ stdout: true, stderr: true })) as unknown as Buffer;
      return { code: StatusCode, out: demux(logs) };
    } finally {
      await c.remove({ force: true }).catch(() => undefined);
    }
  }

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { databaseImages: IMAGES });
    agents = new AgentPool(ca.client);
    dbs = new DatabasesPool(agents);
    caFile = path.join(caDir, 'db-ca.crt');
    await writeFile(caFile, await dbs.databaseCa(target()));
    // Another workspace's network, made the way the agent makes them.
    otherNetworkId = await new WorkspaceNetworks(new DockerRuntime(TEST_SERVICES.dockerSocket, t.agent.platformId), DEFAULT_NETWORKS, silentLogger).ensure(otherWorkspaceId);
    for (const argv of [
      ['netns', 'add', ns],
      ['link', 'add', vethHost, 'type', 'veth', 'peer', 'name', vethNs],
      ['link', 'set', vethNs, 'netns', ns],
      ['addr', 'add', `${hostSide}/30`, 'dev', vethHost],
      ['link', 'set', vethHost, 'up'],
      ['netns', 'exec', ns, 'ip', 'addr', 'add', `${nsSide}/30`, 'dev', vethNs],
      ['netns', 'exec', ns, 'ip', 'link', 'set', vethNs, 'up'],
      ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'],
    ]) {
      const r = await run('ip', argv);
      if (r.code !== 0) throw new Error(`ip ${argv.join(' ')}: ${r.out}`);
    }
  });

  afterAll(async () => {
    await run('ip', ['link', 'del', vethHost]);
    await run('ip', ['netns', 'del', ns]);
    agents?.close();
    if (t) {
      for (const c of await docker.listContainers({ all: true, filters: { label: [`${LABELS.platform}=${t.agent.platformId}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      for (const n of await docker.listNetworks({ filters: { label: [`${LABELS.platform}=${t.agent.platformId}`] } })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
      await t.stop();
    }
    await rm(caDir, { recursive: true, force: true });
  });

  describe.each(['postgres', 'mysql', 'redis'] as const)('%s', (engine) => {
    const databaseId = randomUUID();
    const slug = `${engine}-${randomBytes(2).toString('hex')}`;
    let password = randomBytes(30).toString('base64url');
    const user = engine === 'redis' ? 'default' : 'app';
    const dbName = engine === 'redis' ? '0' : 'appdb';
    let port: number;
    let networkId: string;
    let input: EnsureDatabaseInput;
    const q = (sql: string, o: Partial<{ tls: boolean; netns: string; host: string; password: string }> = {}) =>
      publicQuery(engine, { host: o.host ?? '127.0.0.1', port, user, db: dbName, password: o.password ?? password, ca: caFile, tls: o.tls ?? true, sql, netns: o.netns });
    const s = SCENARIO[engine];
    /** No row count came back (redis-cli exits 0 on an error reply, so the output is what tells). */
    const REFUSED = { out: expect.not.stringMatching(line(s.expect(2))) };
    /** The private client: the engine's own image on the workspace network, through `<slug>.internal` and the URL. */
    const privately = (sql: string, onNetwork = () => networkId) => {
      const url = connectionUrl({ engine, username: user, databaseName: dbName, password, host: `${slug}.internal`, port: ENGINES[engine].port });
      if (engine === 'postgres') return inNetwork(onNetwork(), IMAGES.postgres, 'psql "$URL" -X -tAc "$SQL"', { URL: url, SQL: sql });
      if (engine === 'mysql') return inNetwork(onNetwork(), IMAGES.mysql, `mariadb -h ${slug}.internal -u ${user} -D ${dbName} --connect-timeout=5 -N -B -e "$SQL"`, { MYSQL_PWD: password, SQL: sql });
      return inNetwork(onNetwork(), IMAGES.redis, 'redis-cli -u "$URL" --no-auth-warning $SQL', { URL: url, SQL: sql });
    };

    it('ensure → running once the engine accepts an authenticated connection', async () => {
      port = await freePublicPort();
      input = {
        operationId: op(),
        databaseId,
        workspaceId,
        slug,
        engine,
        version: 'test',
        cpuMillis: 500,
        memoryMb: 256,
        username: user,
        databaseName: dbName,
        password,
        public: { enabled: true, port, allowedCidrs: ['127.0.0.0/8', '::1'] },
      };
      const started = Date.now();
      const status = await dbs.ensureDatabase(target(), input);
      expect(status).toMatchObject({ databaseId, state: 'running', internalHost: `${slug}.internal`, port: ENGINES[engine].port, publicPort: port, image: IMAGES[engine] });
      console.log(`${engine}: ensure → running in ${Date.now() - started} ms`);
      const info = await docker.getContainer(status.containerId).inspect();
      networkId = Object.values(info.NetworkSettings.Networks)[0]!.NetworkID;
      expect(info.Config.Labels).toMatchObject({ [LABELS.database]: databaseId, [LABELS.workspace]: workspaceId, [LABELS.platform]: t.agent.platformId });
      expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
      expect(info.HostConfig.NanoCpus).toBe(500_000_000);
      // Its first initialisation ran with a whole core (INIT_CPU_MILLIS), and the limit came down in place once it
      // answered: two updates of the container, that one and the restart policy armed once ready (a container made on
      // data already there has only the second, below).
      const updates = await containerEvents(docker, status.containerId, 'update', started);
      expect(updates.trim().split('\n').filter(Boolean)).toHaveLength(2);
      // No host port: the public listener is the agent's.
      expect([undefined, null, {}]).toContainEqual(info.HostConfig.PortBindings);
      // The engine's key is the databases' own, never the agent's enrollment key (a superuser can read it).
      const served = await readFile(path.join(t.dataDir, 'databases', databaseId, 'tls', 'server.key'), 'utf8');
      expect(served).not.toBe(t.agent.enrollment.keyPem);
      expect(await dbs.databaseCa(target())).not.toBe(t.agent.enrollment.caPem);
      // The same operation again is answered from the journal.
      expect(await dbs.ensureDatabase(target(), input)).toMatchObject({ replayed: true, containerId: status.containerId });
    });

    it('is read and written through <slug>.internal on its workspace network, and unknown to another workspace', async () => {
      const ip = (await dbs.ensureDatabase(target(), { ...input, operationId: op() })).ipAddress;
      // Three containers at once: the workspace's writes, and another workspace's lookup and connection attempt.
      const [w, other, reach] = await Promise.all([
        privately(s.write),
        inNetwork(otherNetworkId, IMAGES.redis, `getent hosts ${slug}.internal || echo unresolved`),
        inNetwork(otherNetworkId, IMAGES.redis, `timeout 3 bash -c 'echo > /dev/tcp/${ip}/${ENGINES[engine].port}' && echo reached || echo unreachable`),
      ]);
      expect(w.out.trim().split('\n').pop()).toBe(s.expect(2));
      expect(other.out).toContain('unresolved');
      expect(reach.out).toContain('unreachable');
    });

    it('answers public TLS from the host, refuses plain connections, cuts a source outside the allowlist', async () => {
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
      expect(await q(s.count, { tls: false })).toMatchObject(REFUSED);
      expect(await q(s.count, { netns: ns, host: hostSide })).toMatchObject(REFUSED);
      // The list changes for the next connection at once: the namespace is let in, then cut again.
      await dbs.setDatabasePublicAccess(target(), { operationId: op(), databaseId, public: { enabled: true, port, allowedCidrs: ['127.0.0.1/32', `${nsSide}/32`] } });
      expect(await q(s.count, { netns: ns, host: hostSide })).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
      await dbs.setDatabasePublicAccess(target(), { operationId: op(), databaseId, public: { enabled: true, port, allowedCidrs: ['127.0.0.1/32'] } });
      expect(await q(s.count, { netns: ns, host: hostSide })).toMatchObject(REFUSED);
      // Disabled: the port is closed (connection refused), and opened again on enabling.
      expect(await dbs.setDatabasePublicAccess(target(), { operationId: op(), databaseId, public: { enabled: false, port: 0, allowedCidrs: [] } })).toMatchObject({ publicPort: 0 });
      expect(await tcpRefused(port)).toBe(true);
      await dbs.setDatabasePublicAccess(target(), { operationId: op(), databaseId, public: { enabled: true, port, allowedCidrs: ['127.0.0.0/8', '::1'] } });
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
    });

    it('rotates the password inside the live engine: rows kept, the old password refused at once', async () => {
      const before = (await dbs.ensureDatabase(target(), { ...input, operationId: op() })).containerId;
      const old = password;
      const next = randomBytes(30).toString('base64url');
      const status = await dbs.rotateDatabasePassword(target(), { operationId: op(), databaseId, currentPassword: old, newPassword: next });
      expect(status).toMatchObject({ state: 'running', containerId: before });
      password = next;
      input = { ...input, password };
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
      expect(await q(s.count, { password: old })).toMatchObject(REFUSED);
      // A retried rotation (new operation id, the agent had not recorded it) finds the new password in place.
      expect(await dbs.rotateDatabasePassword(target(), { operationId: op(), databaseId, currentPassword: old, newPassword: next })).toMatchObject({ state: 'running' });
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
    });

    it('keeps the rows through a resize (recreated on its data) and a stop/start', async () => {
      const before = (await dbs.ensureDatabase(target(), { ...input, operationId: op() })).containerId;
      const resized = await dbs.ensureDatabase(target(), { ...input, operationId: op(), memoryMb: 384, cpuMillis: 750 });
      expect(resized.state).toBe('running');
      expect(resized.containerId).not.toBe(before);
      expect((await docker.getContainer(resized.containerId).inspect()).HostConfig.Memory).toBe(384 * 1024 * 1024);
      input = { ...input, memoryMb: 384, cpuMillis: 750 };
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });

      expect(await dbs.stopDatabase(target(), { operationId: op(), databaseId })).toMatchObject({ state: 'stopped', publicPort: 0 });
      expect(await q(s.count)).toMatchObject(REFUSED);
      expect(await dbs.startDatabase(target(), { ...input, operationId: op() })).toMatchObject({ state: 'running', publicPort: port });
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
      expect((await privately(s.count)).out).toMatch(line(s.expect(2)));
    });

    it('reopens its public port after an agent restart, and keeps running through it', async () => {
      const before = (await dbs.listDatabases(target(), workspaceId)).find((d) => d.databaseId === databaseId);
      await t.restart();
      expect((await dbs.listDatabases(target(), workspaceId)).find((d) => d.databaseId === databaseId)).toEqual(before);
      expect(before).toMatchObject({ state: 'running', hasData: true, publicPort: port, engine });
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
    });

    it('recreates a container removed by hand on its data (what reconcile asks with Ensure)', async () => {
      const gone = (await dbs.ensureDatabase(target(), { ...input, operationId: op() })).containerId;
      await docker.getContainer(gone).remove({ force: true });
      expect((await dbs.listDatabases(target(), workspaceId)).find((d) => d.databaseId === databaseId)).toMatchObject({ state: 'missing', hasData: true });
      const asked = Date.now();
      const back = await dbs.ensureDatabase(target(), { ...input, operationId: op() });
      expect(back).toMatchObject({ state: 'running', publicPort: port });
      expect(back.containerId).not.toBe(gone);
      // On data already there, no first initialisation: made with its own limit, only the restart policy updated.
      expect((await containerEvents(docker, back.containerId, 'update', asked)).trim().split('\n').filter(Boolean)).toHaveLength(1);
      expect((await docker.getContainer(back.containerId).inspect()).HostConfig.NanoCpus).toBe(input.cpuMillis * 1_000_000);
      expect(await q(s.count)).toMatchObject({ code: 0, out: expect.stringMatching(line(s.expect(2))) });
    });

    it('remove leaves no container and no data', async () => {
      expect(await dbs.removeDatabase(target(), { operationId: op(), databaseId })).toMatchObject({ containerRemoved: true, dataRemoved: true });
      expect(await docker.listContainers({ all: true, filters: { label: [`${LABELS.database}=${databaseId}`] } })).toEqual([]);
      await expect(stat(path.join(t.dataDir, 'databases', databaseId))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await q(s.count)).toMatchObject(REFUSED);
      expect(await dbs.listDatabases(target(), workspaceId)).not.toContainEqual(expect.objectContaining({ databaseId }));
    });
  });

  it(`mongodb is available exactly when ${IMAGES.mongodb} is present (here: ${MONGO_HERE})`, async () => {
    const engines = await dbs.databaseEngines(target());
    expect(engines.find((e) => e.engine === 'mongodb')).toMatchObject({ image: IMAGES.mongodb, available: MONGO_PRESENT, port: 27017 });
    expect(engines.find((e) => e.engine === 'postgres')).toMatchObject({ available: true });
  });

  withMongo('mongodb: the scenario through mongosh in containers of its image', () => mongoScenario());

  withoutMongo('mongodb: engine_unavailable naming the image and docker load (nothing created)', async () => {
    const databaseId = randomUUID();
    const err = await dbs.ensureDatabase(target(), request({ databaseId, slug: 'mongo', engine: 'mongodb', memoryMb: 512 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'engine_unavailable' });
    expect((err as AppError).message).toContain(IMAGES.mongodb);
    expect((err as AppError).message).toContain('docker load');
    await expect(stat(path.join(t.dataDir, 'databases', databaseId))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  /** With the `mongo` image on this machine: the same scenario through mongosh in containers of that image. */
  async function mongoScenario(): Promise<void> {
    const databaseId = randomUUID();
    let password = randomBytes(30).toString('base64url');
    const port = await freePublicPort();
    const status = await dbs.ensureDatabase(target(), request({ databaseId, slug: 'docs', engine: 'mongodb', memoryMb: 512, password, public: { enabled: true, port, allowedCidrs: ['127.0.0.1/32'] } }));
    expect(status).toMatchObject({ state: 'running', internalHost: 'docs.internal', port: 27017, publicPort: port });
    const networkId = Object.values((await docker.getContainer(status.containerId).inspect()).NetworkSettings.Networks)[0]!.NetworkID;
    const url = () => connectionUrl({ engine: 'mongodb', username: 'app', databaseName: 'appdb', password, host: 'docs.internal', port: 27017 });
    const written = await inNetwork(networkId, IMAGES.mongodb, 'mongosh "$URL" --quiet --eval "db.t.insertMany([{v:1},{v:2}]); print(db.t.countDocuments())"', { URL: url() });
    expect(written.out).toMatch(line('2'));
    // Public: mongosh on the host's network with the CA, TLS required.
    const publicly = async (tls: boolean, pw = password) => {
      const c = await docker.createContainer({
        Image: IMAGES.mongodb,
        Entrypoint: ['sh', '-c', 'mongosh "$URL" --quiet --eval "print(db.t.countDocuments())"'],
        Env: [`URL=mongodb://app:${pw}@127.0.0.1:${port}/appdb?authSource=admin&serverSelectionTimeoutMS=5000${tls ? '&tls=true&tlsCAFile=/ca.crt' : ''}`],
        Labels: { [LABELS.workspace]: 'dbtest-client', [LABELS.platform]: t.agent.platformId },
        HostConfig: { NetworkMode: 'host', Binds: [`${caFile}:/ca.crt:ro`] },
      });
      try {
        await c.start();
        await c.wait();
        return demux((await c.logs({ stdout: true, stderr: true })) as unknown as Buffer);
      } finally {
        await c.remove({ force: true }).catch(() => undefined);
      }
    };
    expect(await publicly(true)).toMatch(line('2'));
    expect(await publicly(false)).not.toMatch(line('2'));
    const next = randomBytes(30).toString('base64url');
    await dbs.rotateDatabasePassword(target(), { operationId: op(), databaseId, currentPassword: password, newPassword: next });
    const old = password;
    password = next;
    expect(await publicly(true)).toMatch(line('2'));
    expect(await publicly(true, old)).not.toMatch(line('2'));
    expect(await dbs.removeDatabase(target(), { operationId: op(), databaseId })).toMatchObject({ containerRemoved: true, dataRemoved: true });
  }

  it('RemoveWorkspace erases the databases of the workspace: container, public port and data', async () => {
    const ws = randomUUID();
    const databaseId = randomUUID();
    const port = await freePublicPort();
    await dbs.ensureDatabase(target(), request({ databaseId, workspaceId: ws, slug: 'cache', engine: 'redis', memoryMb: 128, username: 'default', databaseName: '0', public: { enabled: true, port, allowedCidrs: ['127.0.0.1/32'] } }));
    await agents.removeWorkspace(target(), { operationId: op(), workspaceId: ws, appIds: [] });
    expect(await docker.listContainers({ all: true, filters: { label: [`${LABELS.database}=${databaseId}`] } })).toEqual([]);
    await expect(stat(path.join(t.dataDir, 'databases', databaseId))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await tcpRefused(port)).toBe(true);
  });

  it('refuses bad requests with validation_failed', async () => {
    const base = request({});
    for (const bad of [
      { engine: 'oracle' as 'postgres' },
      { slug: 'Not A Label' },
      { password: 'short' },
      { public: { enabled: true, port: 19_999, allowedCidrs: ['10.0.0.0/8'] } },
      { public: { enabled: true, port: 20_001, allowedCidrs: ['10.0.0.0/33'] } },
      { public: { enabled: true, port: 20_001, allowedCidrs: ['10.0.0.1/24'] } },
    ]) {
      await expect(dbs.ensureDatabase(target(), { ...base, ...bad, operationId: op() })).rejects.toMatchObject({ code: 'validation_failed' });
    }
  });
});
