// Database backups on a real agent, real Docker and the engines' own tools (issue 13), through the agent's gRPC
// Backups service: for postgres, mysql (MariaDB stand-in) and redis each — rows written, a backup made (size and
// SHA-256 match the file on the server and the downloaded bytes), verified, rows changed, restored into a new
// database (old rows there, the original keeps the changed ones) and into the same one (old rows back; redis keeps
// them across a restart, so the AOF was rewritten). Failures: a dump onto a full disk (a tiny tmpfs) and a dump cut
// by the engine stopping end `invalid_state` with a reason and leave no file; a removed database's backup still
// restores into a new one.
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@slipway/core';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool, BackupsPool, DatabasesPool, type EnsureDatabaseInput } from '@slipway/proto';
import { TEST_SERVICES } from '@slipway/testing';
import { openTestCa, startTestAgent, type TestAgent } from '@slipway/testing/agent';
import Docker from 'dockerode';
import type { DatabaseEngine } from '@slipway/contracts';
import { LABELS } from '@slipway/core';
import { DockerRuntime } from '../../containers/docker.runtime';

jest.setTimeout(300_000);

const IMAGES = { postgres: 'slipway/postgres:15', mysql: 'slipway/mariadb:10.11', redis: 'slipway/redis:7.0', mongodb: 'mongo:7' };

function run(cmd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }));
  });
}

type Engine = Exclude<DatabaseEngine, 'mongodb'>;
const USER: Record<Engine, string> = { postgres: 'app', mysql: 'app', redis: 'default' };
const DBNAME: Record<Engine, string> = { postgres: 'appdb', mysql: 'appdb', redis: '0' };

describe('database backups on the agent (real Docker, real engines)', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });

  /** The first container carrying `label` to start, inspected at once (a throw-away one lives only seconds). */
  function inspectOnStart(label: string): { info: Promise<Docker.ContainerInspectInfo> } {
    const info = (async () => {
      const stream = (await docker.getEvents({ filters: { type: ['container'], event: ['start'], label: [label] } })) as unknown as NodeJS.ReadableStream & { destroy(): void };
      try {
        const id = await new Promise<string>((resolve) => stream.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString().split('\n')[0]!) as { id: string }).id)));
        return await docker.getContainer(id).inspect();
      } finally {
        stream.destroy();
      }
    })();
    return { info };
  }
  let ca: CertificateAuthority;
  let caDir: string;
  let t: TestAgent;
  let agents: AgentPool;
  let dbs: DatabasesPool;
  let backups: BackupsPool;
  let runtime: DockerRuntime;
  const workspaceId = randomUUID();
  const mounts: string[] = [];

  beforeAll(async () => {
    ({ ca, dir: caDir } = await openTestCa());
    t = await startTestAgent(ca, { databaseImages: IMAGES });
    agents = new AgentPool(ca.client);
    dbs = new DatabasesPool(agents);
    backups = new BackupsPool(agents);
    runtime = new DockerRuntime(TEST_SERVICES.dockerSocket, t.agent.platformId);
  });

  afterAll(async () => {
    for (const m of mounts) await run('umount', ['-l', m]);
    agents?.close();
    if (t) {
      for (const c of await docker.listContainers({ all: true, filters: { label: [`${LABELS.platform}=${t.agent.platformId}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      for (const n of await docker.listNetworks({ filters: { label: [`${LABELS.platform}=${t.agent.platformId}`] } })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
      await t.stop();
    }
    await rm(caDir, { recursive: true, force: true });
  });

  const password = () => randomBytes(24).toString('base64url');

  async function create(engine: Engine): Promise<{ id: string; password: string; creds: { engine: Engine; username: string; databaseName: string; password: string } }> {
    const id = randomUUID();
    const pw = password();
    const input: EnsureDatabaseInput = {
      operationId: randomUUID(),
      databaseId: id,
      workspaceId,
      slug: `${engine}-${randomBytes(3).toString('hex')}`,
      engine,
      version: 'test',
      cpuMillis: 1000,
      memoryMb: 256,
      username: USER[engine],
      databaseName: DBNAME[engine],
      password: pw,
    };
    expect(await dbs.ensureDatabase(t.target, input)).toMatchObject({ state: 'running' });
    return { id, password: pw, creds: { engine, username: USER[engine], databaseName: DBNAME[engine], password: pw } };
  }

  async function containerOf(databaseId: string): Promise<string> {
    const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.database}=${databaseId}`] } });
    return list[0]!.Id;
  }

  /** A query through the engine's own client inside the database's container; the rows' values, sorted. */
  async function query(engine: Engine, db: { id: string; password: string }, sql: string): Promise<string> {
    const id = await containerOf(db.id);
    const spec: { cmd: string[]; env?: Record<string, string> } =
      engine === 'postgres'
        ? { cmd: ['psql', '-U', 'app', '-d', 'appdb', '-X', '-tA', '-v', 'ON_ERROR_STOP=1', '-c', sql] }
        : engine === 'mysql'
          ? { cmd: ['mariadb', '--protocol=socket', '-uapp', '-D', 'appdb', '-N', '-B', '-e', sql], env: { MYSQL_PWD: db.password } }
          : { cmd: ['redis-cli', '--no-auth-warning', ...sql.split(' ')], env: { REDISCLI_AUTH: db.password } };
    const r = await runtime.exec(id, { ...spec, timeoutMs: 30_000 });
    if (r.exitCode !== 0) throw new Error(`${sql}: ${r.stderr}`);
    return r.stdout.trim();
  }

  const WRITE: Record<Engine, string[]> = {
    postgres: ['CREATE TABLE t (v text)', "INSERT INTO t VALUES ('a'), ('b')"],
    mysql: ['CREATE TABLE t (v varchar(10))', "INSERT INTO t VALUES ('a'), ('b')"],
    redis: ['RPUSH t a b'],
  };
  const CHANGE: Record<Engine, string> = { postgres: "INSERT INTO t VALUES ('c')", mysql: "INSERT INTO t VALUES ('c')", redis: 'RPUSH t c' };
  const READ: Record<Engine, string> = { postgres: 'SELECT v FROM t ORDER BY v', mysql: 'SELECT v FROM t ORDER BY v', redis: 'LRANGE t 0 -1' };
  const rows = (out: string) => out.split('\n').map((s) => s.trim()).filter(Boolean).join(',');

  describe.each(['postgres', 'mysql', 'redis'] as const)('%s', (engine) => {
    let a: Awaited<ReturnType<typeof create>>;
    const backupId = randomUUID();
    let sha: string;
    let file: string;

    it('backs up into a file whose size and SHA-256 are recorded, downloadable and verified', async () => {
      a = await create(engine);
      for (const sql of WRITE[engine]) await query(engine, a, sql);
      expect(rows(await query(engine, a, READ[engine]))).toBe('a,b');
      const started = Date.now();
      const made = await backups.createBackup(t.target, { databaseId: a.id, backupId, ...a.creds });
      console.log(`${engine}: backup of ${made.sizeBytes} bytes in ${Date.now() - started} ms`);
      expect(made.sizeBytes).toBeGreaterThan(0);
      expect(made.path).toMatch(new RegExp(`^backups/${a.id}/${backupId}\\.`));
      const onDisk = await readFile(path.join(t.dataDir, made.path));
      sha = createHash('sha256').update(onDisk).digest('hex');
      expect(made.sha256).toBe(sha);
      expect(onDisk.length).toBe(made.sizeBytes);
      file = path.join(t.dataDir, made.path);
      // The same backup id again is answered with the file already made.
      expect(await backups.createBackup(t.target, { databaseId: a.id, backupId, ...a.creds })).toMatchObject({ replayed: true, sha256: sha });
      // Downloaded bytes hash to the recorded checksum.
      const dl = await backups.readBackup(t.target, { databaseId: a.id, backupId });
      const hash = createHash('sha256');
      for await (const chunk of dl.stream) hash.update(chunk as Buffer);
      expect({ sha: hash.digest('hex'), header: dl.sha256, size: dl.sizeBytes }).toEqual({ sha, header: sha, size: made.sizeBytes });
      expect(await backups.verifyBackup(t.target, { databaseId: a.id, backupId, ...a.creds })).toMatchObject({ ok: true });
      // The strongest check: loaded into a throw-away container (no network, the hardening of every workload), removed afterwards.
      const seen = inspectOnStart(`slipway.backup-verify=${backupId}`);
      expect(await backups.verifyBackup(t.target, { databaseId: a.id, backupId, ...a.creds, load: true })).toMatchObject({ ok: true, method: 'load' });
      const verifier = await seen.info;
      expect(verifier.HostConfig).toMatchObject({
        NetworkMode: 'none',
        CapDrop: ['ALL'],
        CapAdd: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'],
        SecurityOpt: ['no-new-privileges:true'],
        PidsLimit: 512,
        Privileged: false,
        Memory: 512 * 1024 * 1024,
        RestartPolicy: { Name: 'no' },
      });
      expect(verifier.Config.Labels).toMatchObject({ [LABELS.platform]: t.agent.platformId, [LABELS.workspace]: 'backup-verify' });
      expect(await docker.listContainers({ all: true, filters: { label: [`slipway.backup-verify=${backupId}`] } })).toEqual([]);
    });

    it('restores into a new database (old rows there, the original keeps the changed ones) and into the same one', async () => {
      await query(engine, a, CHANGE[engine]);
      const b = await create(engine);
      // Asked twice at once (a restore job run again after its worker died mid-restore): the second joins the running
      // one and answers the same; other work on that database meanwhile is refused busy.
      const restore = () => backups.restoreBackup(t.target, { databaseId: b.id, sourceDatabaseId: a.id, backupId, sha256: sha, ...b.creds });
      const [first, again, other] = await Promise.allSettled([restore(), restore(), backups.createBackup(t.target, { databaseId: b.id, backupId: randomUUID(), ...b.creds })]);
      expect(first).toMatchObject({ status: 'fulfilled' });
      expect(again).toEqual(first);
      expect(other).toMatchObject({ status: 'rejected', reason: { code: 'database_busy' } });
      expect(rows(await query(engine, b, READ[engine]))).toBe('a,b');
      expect(rows(await query(engine, a, READ[engine]))).toBe('a,b,c');
      // Into the same database: the old rows back, the credentials the same (the queries use them).
      await backups.restoreBackup(t.target, { databaseId: a.id, sourceDatabaseId: a.id, backupId, sha256: sha, ...a.creds });
      expect(rows(await query(engine, a, READ[engine]))).toBe('a,b');
    });

    // MariaDB's dump tool writes USE / CREATE DATABASE unless told not to (a case of its own, for mysql only).
    if (engine === 'mysql') {
      it('mysql: the dump names no database (no USE / CREATE DATABASE): it loads into whichever database it is fed to', async () => {
        const dump = await readFile(file, 'utf8');
        expect(dump).toContain('INSERT INTO');
        expect(dump).not.toMatch(/^USE /m);
        expect(dump).not.toMatch(/CREATE DATABASE/);
      });
    }

    // Redis alone keeps its data in an append-only file (a case of its own, registered for redis only).
    if (engine === 'redis') {
      it('redis: the AOF was rewritten from the restored data, so a restart loads the same rows', async () => {
        await docker.getContainer(await containerOf(a.id)).restart({ t: 10 });
        await new Promise((r) => setTimeout(r, 1500));
        expect(rows(await query(engine, a, READ[engine]))).toBe('a,b');
        expect(await query(engine, a, 'CONFIG GET appendonly')).toMatch(/yes/);
      });
    }

    it('a removed database keeps its backups: they restore into a new one', async () => {
      await dbs.removeDatabase(t.target, { operationId: randomUUID(), databaseId: a.id });
      const c = await create(engine);
      await backups.restoreBackup(t.target, { databaseId: c.id, sourceDatabaseId: a.id, backupId, sha256: sha, ...c.creds });
      expect(rows(await query(engine, c, READ[engine]))).toBe('a,b');
      expect(await backups.deleteBackup(t.target, { databaseId: a.id, backupId })).toEqual({ removed: true });
      await expect(backups.readBackup(t.target, { databaseId: a.id, backupId })).rejects.toMatchObject({ code: 'not_found' });
    });
  });

  describe('failures leave no file counted as a backup', () => {
    let db: Awaited<ReturnType<typeof create>>;
    beforeAll(async () => {
      db = await create('postgres');
      // About 200 MB of rows: more than the tmpfs holds.
      await query('postgres', db, "CREATE TABLE big AS SELECT g, md5(g::text) || md5((g + 1)::text) AS v FROM generate_series(1, 3000000) g");
    });

    it('a full disk (a 1 MB tmpfs) fails with a reason and leaves no partial file', async () => {
      const dir = path.join(t.dataDir, 'backups', db.id);
      await mkdir(dir, { recursive: true });
      const mounted = await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
      expect(mounted).toMatchObject({ code: 0 });
      mounts.push(dir);
      const err = await backups.createBackup(t.target, { databaseId: db.id, backupId: randomUUID(), ...db.creds }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_state', message: expect.stringMatching(/disk is full/) });
      expect(await readdir(dir)).toEqual([]);
      await run('umount', [dir]);
      mounts.pop();
    });

    it('a dump cut by the engine stopping fails with a reason and leaves no file', async () => {
      const backupId = randomUUID();
      const container = await containerOf(db.id);
      const pending = backups.createBackup(t.target, { databaseId: db.id, backupId, ...db.creds }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      await docker.getContainer(container).kill().catch(() => undefined);
      const err = await pending;
      expect(err).toMatchObject({ code: 'invalid_state', message: expect.stringMatching(/stopped during the backup|dump tool failed|not complete/) });
      const dir = path.join(t.dataDir, 'backups', db.id);
      expect((await readdir(dir).catch(() => [] as string[])).filter((n) => n.includes(backupId))).toEqual([]);
      // A stopped database cannot be backed up, and says so.
      await expect(backups.createBackup(t.target, { databaseId: db.id, backupId: randomUUID(), ...db.creds })).rejects.toMatchObject({
        code: 'invalid_state',
        message: expect.stringMatching(/not running/),
      });
    });
  });
});
