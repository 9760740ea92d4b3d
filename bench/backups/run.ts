// Database backup benchmark (issue 13): a PostgreSQL database with about 1 GB of rows, backed up and restored through
// the agent's Backups service (gRPC, mutual TLS) by a real agent in its own process; the agent's resident memory is
// sampled every 10 ms meanwhile. The baseline is the engine's own tool alone: `docker exec … pg_dump` into /dev/null.
//   npx tsx bench/backups/run.ts [--gb 1] [--destination s3 [--read-back]] [--backup-only] [--cpu-prof DIR]
// With `--destination s3` (issue 33) the same database is also backed up to the test S3 server (s3rver behind its
// verifying front, in a child process) as a sealed multipart upload streamed by the agent (no local copy), side by
// side with the local backup of the same run and the storage alone (a plain multipart upload of the same bytes), then
// restored from the destination into a new database (downloaded and opened by the agent). --read-back: also to a
// storage that keeps no checksums (the object read back whole). Each step says where the CPU went.
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
import { removeLabelled } from '@slipway/testing/engine';
import Docker from 'dockerode';
import { AgentPool, BackupsPool, DatabasesPool } from '../../packages/proto/src';
import { verdict } from '../lib/verdict';

const { values } = parseArgs({ options: { gb: { type: 'string', default: '1' }, destination: { type: 'string', default: '' }, 'cpu-prof': { type: 'string', default: '' }, 'backup-only': { type: 'boolean', default: false }, 'read-back': { type: 'boolean', default: false } } });
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
interface UploadLog {
  uploadMs: number;
  partsMs: number;
  readBackMs: number;
  manifestMs: number;
  verifiedBy: string;
}
let uploadTimings: UploadLog | null = null;

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
        return JSON.parse(line) as { level?: number; msg?: string } & Partial<UploadLog>;
      } catch {
        return null;
      }
    })();
    if (!entry) return void console.error(line);
    if ((entry.level ?? 0) >= 40) console.error(line);
    if (entry.msg === 'database backed up to its destination') uploadTimings = { uploadMs: entry.uploadMs ?? 0, partsMs: entry.partsMs ?? 0, readBackMs: entry.readBackMs ?? 0, manifestMs: entry.manifestMs ?? 0, verifiedBy: entry.verifiedBy ?? '' };
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
    if (values.destination === 's3') failed += await toDestination({ agentPid: agent.pid!, backups, dbs, target, databaseId, creds, password, dbBytes, rows, localFile: path.join(agentDir, backup.result.path) });
    if (failed) process.exitCode = 1;
  } finally {
    agent.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, profile.length ? 10_000 : 1000);
      agent.once('exit', () => (clearTimeout(timer), resolve()));
    });
    await removeLabelled(docker, `slipway.platform=${platformId}`);
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

/**
 * The test S3 server (s3rver behind its verifying front; `checksums: 'ignore'`: a storage that keeps no checksums, so
 * that backups are read back whole) in a child process: its CPU and memory are its own.
 */
async function startStorage(checksums: 'keep' | 'ignore'): Promise<{ endpoint: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'test-s3.ts'), 'bench', checksums], { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.resolve(__dirname, '../..') });
  const endpoint = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the test S3 server exited ${code}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { endpoint, pid: child.pid!, stop };
}

/**
 * The same database backed up to the test S3 server (sealed, multipart, no local copy) and restored from it into a
 * new database, beside the storage alone (a plain multipart upload of the same bytes). With --read-back, also to a
 * storage that keeps no checksums (the object read back whole before the backup counts).
 */
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
  /** The local backup's file: the same dump's bytes, uploaded plain as the storage's own baseline. */
  localFile: string;
}): Promise<number> {
  let failed = 0;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const backupKey = randomBytes(32);
  const fileBytes = (await stat(o.localFile)).size;
  let rate = 0;
  let growth = 0;
  for (const checksums of values['read-back'] ? (['keep', 'ignore'] as const) : (['keep'] as const)) {
    const s3 = await startStorage(checksums);
    const storageMeters = meters;
    meters = { ...meters, 'test S3 (front + s3rver)': () => processCpu(s3.pid) };
    try {
      const offsite = { endpoint: s3.endpoint, region: 'us-east-1', bucket: 'bench', pathStyle: true, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', backupKey };
      const storage: S3Target = { ...offsite, prefix: '' };
      const kind = checksums === 'keep' ? 'the test S3 server' : 'the test S3 server keeping no checksums';
      console.log(`  to ${kind}: s3rver behind its front (SigV4 and payload hash checked${checksums === 'keep' ? ", S3's SHA-256 checksums kept" : ''}), a process of its own`);
      if (checksums === 'keep') {
        // The storage alone: the local backup's file (in the page cache) as a plain multipart upload from this
        // process, same part size and parts in flight as the agent's, no sealing, no checksums, no read back: what the
        // test S3 server itself allows on this machine now.
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
        console.log(
          `  storage   plain multipart upload of the local file (8 MiB × 2, no sealing, no read back) ${plain.seconds.toFixed(1).padStart(6)} s   ${(o.dbBytes / MB / plain.seconds).toFixed(0).padStart(4)} MB/s of database (${(fileBytes / MB / plain.seconds).toFixed(0)} MB/s of file); parts ${seconds(plain.result.partsMs)}, s3rver assembling them ${seconds(plain.seconds * 1000 - plain.result.partsMs)}`,
        );
        console.log(cpuLine(plain));
      }
      // The destination's test call first, run by the agent as a platform runs it when the destination is created or
      // changed: the agent loads the S3 SDK then, once, not during a backup.
      const probe = await measured(o.agentPid, () => o.backups.probeDestination(o.target, storage));
      if (!probe.result.ok) failed++;
      console.log(`  probe     the destination's test call (write, read back, delete a probe object) ${probe.seconds.toFixed(1).padStart(6)} s   ${probe.result.ok ? 'ok' : `FAILED: ${probe.result.message}`}   agent RSS +${probe.growth.toFixed(1)} MB`);
      const backupId = randomUUID();
      uploadTimings = null;
      const up = await measured(o.agentPid, () => o.backups.createBackup(o.target, { databaseId: o.databaseId, backupId, ...o.creds, offsite: { ...offsite, key: `bench/${o.databaseId}/${backupId}`, keepLocal: false } }));
      if (!up.result.remote || up.result.path !== '') failed++;
      const upRate = o.dbBytes / MB / up.seconds;
      console.log(
        `  offsite   agent → test S3 (sealed, multipart, verified) ${up.seconds.toFixed(1).padStart(6)} s   ${upRate.toFixed(0).padStart(4)} MB/s of database, object ${(up.result.remote!.sizeBytes / MB).toFixed(0)} MB, no local file   agent RSS +${up.growth.toFixed(1)} MB`,
      );
      console.log(cpuLine(up));
      const t = uploadTimings as UploadLog | null;
      if (t) {
        const how = t.verifiedBy === 'checksum' ? "size and the storage's checksum read back (HEAD)" : 'read back whole (HEAD + GET + SHA-256)';
        console.log(`            of which: dump streamed up in parts ${seconds(t.partsMs)}, the storage assembling them ${seconds(t.uploadMs - t.partsMs)}, verified ${seconds(t.readBackMs)} (${how}), manifest ${seconds(t.manifestMs)} (the agent's log)`);
      }
      if (checksums === 'keep') {
        rate = upRate;
        growth = up.growth;
        const down = await restoreInto({ ...o, slug: 'bench-pg-offsite', request: { sourceDatabaseId: o.databaseId, backupId, sha256: up.result.sha256, ...o.creds, offsite: { ...offsite, key: up.result.remote!.key, sha256: up.result.remote!.sha256 } } });
        if (down.result !== o.rows) failed++;
        console.log(`  restore   from the test S3 into a new database (download, open, pg_restore) ${down.seconds.toFixed(1).padStart(6)} s   ${down.result.toLocaleString('en')} rows back   agent RSS +${down.growth.toFixed(1)} MB`);
      }
    } finally {
      meters = storageMeters;
      await s3.stop();
    }
  }
  console.log(`targets (destination): dump ≥ 50 MB/s (${rate.toFixed(0)}): ${verdict(rate >= 50, failed)}; agent RSS growth ≤ 64 MB (${growth.toFixed(1)}): ${verdict(growth <= 64, failed)}`);
  return failed;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
