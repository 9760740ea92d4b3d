// Database backup benchmark (issue 13): a PostgreSQL database with about 1 GB of rows, backed up and restored through
// the agent's Backups service (gRPC, mutual TLS) by a real agent in its own process; the agent's resident memory is
// sampled every 10 ms meanwhile. The baseline is the engine's own tool alone: `docker exec … pg_dump` into /dev/null.
//   npx tsx bench/backups/run.ts [--gb 1] [--destination s3]
// With `--destination s3` (issue 33) the same database is also backed up to s3rver (in a child process) as a sealed
// multipart upload streamed by the agent (no local copy), side by side with the local backup of the same run, then
// restored from the destination into a new database (downloaded and opened by the agent).
// Self-contained: a CA and the agent's data folder in temporary folders, removed at the end with the container.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { enrollOffline, openTestCa } from '@slipway/testing/agent';
import { Upload } from '@aws-sdk/lib-storage';
import { removeStored, s3Client, type S3Target } from '@slipway/offsite';
import Docker from 'dockerode';
import { AgentPool, BackupsPool, DatabasesPool } from '../../packages/proto/src';
import { startS3rverChild } from '../lib/s3rver';
import { verdict } from '../lib/verdict';

const { values } = parseArgs({ options: { gb: { type: 'string', default: '1' }, destination: { type: 'string', default: '' }, 'cpu-prof': { type: 'string', default: '' }, 'backup-only': { type: 'boolean', default: false } } });
/** --backup-only: the backups alone (no verify, no restores): for looking into the backups' speed quickly. */
const backupOnly = values['backup-only'];
if (values.destination && values.destination !== 's3') throw new Error('--destination takes s3');
const GB = Number(values.gb);
const MB = 1_000_000;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** The last upload's timings, from the agent's log line `database backed up to its destination`. */
let uploadTimings: { uploadMs: number; partsMs: number; readBackMs: number; manifestMs: number } | null = null;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** CPU seconds (user + system) a process used so far; 0 when it is gone. */
const processCpu = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};
/** CPU seconds a container's processes used so far (cgroup v1 cpuacct); 0 when unknown. */
const containerCpu = (id: string) => {
  try {
    return Number(readFileSync(`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, 'utf8')) / 1e9;
  } catch {
    return 0;
  }
};
/** CPU seconds the whole machine was busy so far (every core, every process: other engineers' too). */
const machineCpu = () => {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!) / 100;
};
const dockerdPid = (() => {
  try {
    return Number(readFileSync('/var/run/docker.pid', 'utf8').trim());
  } catch {
    return 0;
  }
})();

/** Where the CPU went during a step: each meter's CPU seconds. */
type Meters = Record<string, () => number>;
let meters: Meters = { machine: machineCpu };

async function measured<T>(pid: number, work: () => Promise<T>) {
  const before = rssMb(pid);
  const cpuBefore = Object.fromEntries(Object.entries(meters).map(([k, f]) => [k, f()]));
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
  const t0 = performance.now();
  try {
    const result = await work();
    const cpu = Object.fromEntries(Object.entries(meters).map(([k, f]) => [k, f() - cpuBefore[k]!]));
    return { result, seconds: (performance.now() - t0) / 1000, growth: peak - before, cpu };
  } finally {
    clearInterval(timer);
  }
}

/** `cpu: agent 3.1 s, dockerd 1.2 s, … of the machine's 2 × 10.0 s` */
const cpuLine = (m: { seconds: number; cpu: Record<string, number> }) =>
  `            cpu: ${Object.entries(m.cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ')}; the machine busy ${m.cpu.machine!.toFixed(1)} s of ${os.availableParallelism()} × ${m.seconds.toFixed(1)} s (other engineers' work included)`;

function sh(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 64 * MB, timeout: 3_600_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.slice(0, 4).join(' ')}: ${stderr || err.message}`)) : resolve(stdout))),
  );
}

async function until(what: string, probe: () => Promise<boolean>) {
  for (let i = 0; i < 600; i++) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

async function main() {
  const root = path.resolve(__dirname, '../..');
  const docker = new Docker();
  const { ca, dir: caDir } = await openTestCa();
  const agentDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-backups-'));
  await enrollOffline(ca, agentDir, 'bench-backups');
  const port = await freePort();
  const platformId = `bench-backups-${randomBytes(3).toString('hex')}`;
  // --cpu-prof DIR: the agent writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [];
  const agent: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=4', ...profile, '--import', 'tsx', path.join(root, 'apps/agent/src/main.ts'), 'run'], {
    cwd: root,
    env: { ...process.env, SLIPWAY_LOG_LEVEL: 'info', SLIPWAY_AGENT_DATA_DIR: agentDir, SLIPWAY_AGENT_NODE_NAME: 'bench-backups', SLIPWAY_AGENT_LISTEN: `127.0.0.1:${port}`, SLIPWAY_PLATFORM_ID: platformId },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The agent's log: warnings and errors shown; the upload's timings kept (where the destination's time went).
  createInterface({ input: agent.stdout! }).on('line', (line) => {
    const entry = (() => {
      try {
        return JSON.parse(line) as { level?: number; msg?: string; uploadMs?: number; partsMs?: number; readBackMs?: number; manifestMs?: number };
      } catch {
        return null;
      }
    })();
    if (!entry) return void console.error(line);
    if ((entry.level ?? 0) >= 40) console.error(line);
    if (entry.msg === 'database backed up to its destination') uploadTimings = { uploadMs: entry.uploadMs ?? 0, partsMs: entry.partsMs ?? 0, readBackMs: entry.readBackMs ?? 0, manifestMs: entry.manifestMs ?? 0 };
  });
  const pool = new AgentPool(ca.client);
  const target = { name: 'bench-backups', grpcAddress: `127.0.0.1:${port}` };
  const dbs = new DatabasesPool(pool);
  const backups = new BackupsPool(pool);
  let failed = 0;
  try {
    await until('the agent', () => pool.health(target).then(() => true));
    const password = randomBytes(24).toString('base64url');
    const databaseId = randomUUID();
    const creds = { engine: 'postgres' as const, username: 'app', databaseName: 'appdb', password };
    const status = await dbs.ensureDatabase(target, {
      operationId: randomUUID(),
      databaseId,
      workspaceId: randomUUID(),
      slug: 'bench-pg',
      engine: 'postgres',
      version: '15',
      cpuMillis: 2000,
      memoryMb: 1024,
      username: 'app',
      databaseName: 'appdb',
      password,
    });
    const container = status.containerId;
    const containerFullId = (await docker.getContainer(container).inspect()).Id;
    meters = { agent: () => processCpu(agent.pid!), dockerd: () => processCpu(dockerdPid), 'the database container': () => containerCpu(containerFullId), machine: machineCpu };
    const psql = (sql: string) => sh('docker', ['exec', container, 'psql', '-U', 'app', '-d', 'appdb', '-X', '-tAq', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
    // Rows of ~250 bytes (an id, a timestamp and three md5-derived text columns): about 4 million per GB.
    const rows = Math.round(GB * 4_000_000);
    const t0 = performance.now();
    await psql('CREATE TABLE events (id bigint PRIMARY KEY, at timestamptz, a text, b text, c text)');
    for (let from = 1; from <= rows; from += 1_000_000) {
      const to = Math.min(rows, from + 999_999);
      await psql(
        `INSERT INTO events SELECT g, now() - (g || ' seconds')::interval, md5(g::text) || md5((g*7)::text), md5((g*3)::text) || repeat(md5((g*5)::text), 2), md5((g*11)::text) || md5((g*13)::text) FROM generate_series(${from}, ${to}) g`,
      );
    }
    const dbBytes = Number((await psql("SELECT pg_database_size('appdb')")).trim());
    console.log(`backup benchmark: PostgreSQL 15, ${rows.toLocaleString('en')} rows, database ${(dbBytes / MB).toFixed(0)} MB (filled in ${((performance.now() - t0) / 1000).toFixed(0)} s), on ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}`);

    // Baseline: the tool alone, its output thrown away inside the container.
    const base = await measured(agent.pid!, () => sh('docker', ['exec', '-e', `PGPASSWORD=${password}`, container, 'sh', '-c', 'pg_dump -U app -d appdb --format=custom --compress=0 --no-owner --no-acl > /dev/null']));

    const backupId = randomUUID();
    const backup = await measured(agent.pid!, () => backups.createBackup(target, { databaseId, backupId, ...creds }));
    const fileMb = backup.result.sizeBytes / MB;
    const verify = await measured(agent.pid!, () => (backupOnly ? Promise.resolve({ ok: true, message: 'skipped' }) : backups.verifyBackup(target, { databaseId, backupId, ...creds })));
    if (!verify.result.ok) failed++;

    // Restore into a second database of the same engine (the "new" path).
    const restore = await restoreInto({ agentPid: agent.pid!, dbs, backups, target, slug: 'bench-pg-restored', password, rows, request: { sourceDatabaseId: databaseId, backupId, sha256: backup.result.sha256, ...creds } });
    const count = restore.result;
    if (count !== rows) failed++;

    const dumpRate = dbBytes / MB / backup.seconds;
    const baseRate = dbBytes / MB / base.seconds;
    console.log(`  baseline  docker exec pg_dump -Fc -Z0 > /dev/null ${base.seconds.toFixed(1).padStart(6)} s   ${baseRate.toFixed(0).padStart(4)} MB/s of database`);
    console.log(
      `  backup    agent → backups/<id>/ (SHA-256, fsync) ${backup.seconds.toFixed(1).padStart(6)} s   ${dumpRate.toFixed(0).padStart(4)} MB/s of database, file ${fileMb.toFixed(0)} MB (${(fileMb / backup.seconds).toFixed(0)} MB/s written)   agent RSS +${backup.growth.toFixed(1)} MB`,
    );
    console.log(cpuLine(backup));
    console.log(`  verify    checksum + pg_restore -f /dev/null   ${verify.seconds.toFixed(1).padStart(6)} s   ${verify.result.ok ? 'ok' : `FAILED: ${verify.result.message}`}   agent RSS +${verify.growth.toFixed(1)} MB`);
    console.log(`  restore   into a new database (pg_restore)      ${restore.seconds.toFixed(1).padStart(6)} s   ${(dbBytes / MB / restore.seconds).toFixed(0).padStart(4)} MB/s of database, ${count.toLocaleString('en')} rows back   agent RSS +${restore.growth.toFixed(1)} MB`);
    const growth = Math.max(backup.growth, restore.growth, verify.growth);
    console.log(`targets: dump ≥ 50 MB/s (${dumpRate.toFixed(0)}): ${verdict(dumpRate >= 50, failed)}; agent RSS growth ≤ 64 MB (${growth.toFixed(1)}): ${verdict(growth <= 64, failed)}`);
    if (values.destination === 's3') failed += await toDestination({ agentPid: agent.pid!, backups, dbs, target, databaseId, creds, password, dbBytes, rows, agentDir, localFile: path.join(agentDir, backup.result.path) });
    if (failed) process.exitCode = 1;
  } finally {
    agent.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, profile.length ? 10_000 : 1000);
      agent.once('exit', () => (clearTimeout(timer), resolve()));
    });
    for (const c of await docker.listContainers({ all: true, filters: { label: [`slipway.platform=${platformId}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    for (const n of await docker.listNetworks({ filters: { label: [`slipway.platform=${platformId}`] } })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
    pool.close();
    await rm(agentDir, { recursive: true, force: true });
    await rm(caDir, { recursive: true, force: true });
  }
}

/**
 * Restores a backup into a new database (created here; the restore alone measured) and counts its rows. With
 * --backup-only nothing is restored: zero seconds and the expected rows.
 */
async function restoreInto(o: {
  agentPid: number;
  dbs: DatabasesPool;
  backups: BackupsPool;
  target: { name: string; grpcAddress: string };
  slug: string;
  password: string;
  rows: number;
  request: Omit<Parameters<BackupsPool['restoreBackup']>[1], 'databaseId'>;
}) {
  if (backupOnly) return { result: o.rows, seconds: 0, growth: 0, cpu: {} as Record<string, number> };
  const databaseId = randomUUID();
  await o.dbs.ensureDatabase(o.target, { operationId: randomUUID(), databaseId, workspaceId: randomUUID(), slug: o.slug, engine: 'postgres', version: '15', cpuMillis: 2000, memoryMb: 1024, username: 'app', databaseName: 'appdb', password: o.password });
  const restored = await measured(o.agentPid, () => o.backups.restoreBackup(o.target, { databaseId, ...o.request }));
  const container = (await o.dbs.listDatabases(o.target)).find((d) => d.databaseId === databaseId)!.containerId;
  const count = Number((await sh('docker', ['exec', container, 'psql', '-U', 'app', '-d', 'appdb', '-X', '-tAc', 'SELECT count(*) FROM events'])).trim());
  return { ...restored, result: count };
}

/** The same database backed up to s3rver (sealed, multipart, no local copy) and restored from it into a new database. */
async function toDestination(o: {
  agentPid: number;
  backups: BackupsPool;
  dbs: DatabasesPool;
  target: { name: string; grpcAddress: string };
  databaseId: string;
  creds: { engine: 'postgres'; username: string; databaseName: string; password: string };
  password: string;
  dbBytes: number;
  rows: number;
  agentDir: string;
  /** The local backup's file: the same dump's bytes, uploaded plain as the storage's own baseline. */
  localFile: string;
}): Promise<number> {
  let failed = 0;
  const s3Dir = `${o.agentDir}-s3`;
  const s3 = await startS3rverChild(s3Dir, 'bench');
  meters = { ...meters, s3rver: () => processCpu(s3.pid) };
  try {
    const offsite = { endpoint: s3.endpoint, region: 'us-east-1', bucket: 'bench', pathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', backupKey: randomBytes(32) };
    const storage: S3Target = { ...offsite, prefix: '' };
    // The storage alone: the local backup's file (in the page cache) as a plain multipart upload from this process,
    // same part size and parts in flight as the agent's, no sealing, hashing or read back: what s3rver itself allows.
    const plain = await measured(o.agentPid, async () => {
      const client = s3Client(storage);
      const t0 = performance.now();
      let lastPart = t0;
      const upload = new Upload({ client, params: { Bucket: 'bench', Key: 'plain', Body: createReadStream(o.localFile) }, partSize: 8 * 1024 * 1024, queueSize: 2 });
      upload.on('httpUploadProgress', () => (lastPart = performance.now()));
      await upload.done();
      const partsMs = lastPart - t0;
      client.destroy();
      await removeStored(storage, 'plain');
      return { partsMs };
    });
    const fileBytes = (await stat(o.localFile)).size;
    console.log(
      `  storage   plain multipart upload of the local file to s3rver (8 MiB × 2, no sealing, no read back) ${plain.seconds.toFixed(1).padStart(6)} s   ${(fileBytes / MB / plain.seconds).toFixed(0).padStart(4)} MB/s of file (${(o.dbBytes / MB / plain.seconds).toFixed(0)} MB/s of database); parts ${(plain.result.partsMs / 1000).toFixed(1)} s, s3rver assembling them ${((plain.seconds * 1000 - plain.result.partsMs) / 1000).toFixed(1)} s`,
    );
    console.log(cpuLine(plain));
    const backupId = randomUUID();
    const up = await measured(o.agentPid, () => o.backups.createBackup(o.target, { databaseId: o.databaseId, backupId, ...o.creds, offsite: { ...offsite, key: `bench/${o.databaseId}/${backupId}`, keepLocal: false } }));
    if (!up.result.remote || up.result.path !== '') failed++;
    const down = await restoreInto({ ...o, slug: 'bench-pg-offsite', request: { sourceDatabaseId: o.databaseId, backupId, sha256: up.result.sha256, ...o.creds, offsite: { ...offsite, key: up.result.remote!.key, sha256: up.result.remote!.sha256 } } });
    const count = down.result;
    if (count !== o.rows) failed++;
    const rate = o.dbBytes / MB / up.seconds;
    console.log(
      `  offsite   agent → s3rver (sealed, multipart, read back) ${up.seconds.toFixed(1).padStart(6)} s   ${rate.toFixed(0).padStart(4)} MB/s of database, object ${(up.result.remote!.sizeBytes / MB).toFixed(0)} MB, no local file   agent RSS +${up.growth.toFixed(1)} MB`,
    );
    console.log(cpuLine(up));
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    if (uploadTimings) console.log(`            of which: dump streamed up in parts ${seconds(uploadTimings.partsMs)}, the storage assembling them ${seconds(uploadTimings.uploadMs - uploadTimings.partsMs)}, read back (HEAD + GET + SHA-256) ${seconds(uploadTimings.readBackMs)}, manifest ${seconds(uploadTimings.manifestMs)} (the agent's log)`);
    console.log(`  restore   from s3rver into a new database (download, open, pg_restore) ${down.seconds.toFixed(1).padStart(6)} s   ${count.toLocaleString('en')} rows back   agent RSS +${down.growth.toFixed(1)} MB`);
    console.log(`targets (destination): dump ≥ 50 MB/s (${rate.toFixed(0)}): ${verdict(rate >= 50, failed)}; agent RSS growth ≤ 64 MB (${up.growth.toFixed(1)}): ${verdict(up.growth <= 64, failed)}`);
    return failed;
  } finally {
    s3.stop();
    await rm(s3Dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
