// Helpers of the managed-database tests and benchmark (issue 12): the engine images the test platform runs, real
// clients from the host (psql, mariadb, redis-cli: argv arrays, passwords through the environment), and a client
// container on a workspace's private network.
import { spawn } from 'node:child_process';
import { LABELS } from '@slipway/core';
import type Docker from 'dockerode';

/** The local stand-ins of deploy/images (deploy/images/build.sh builds them), and the official `mongo` (absent here). */
export const TEST_DATABASE_IMAGES = {
  postgres: 'slipway/postgres:15',
  mysql: 'slipway/mariadb:10.11',
  redis: 'slipway/redis:7.0',
  mongodb: 'mongo:7',
} as const;

export type TestEngine = 'postgres' | 'mysql' | 'redis';

export interface ClientResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface HostTarget {
  host: string;
  port: number;
  username: string;
  password: string;
  databaseName: string;
  /** `verify`: TLS with the CA file and the host name checked; `none`: no TLS at all. */
  tls: 'verify' | 'none';
  caFile?: string;
}

/** Runs a command with argv and an environment of its own (never a shell); kills it after `timeoutMs`. */
export function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 20_000, input?: string): Promise<ClientResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.trim(), stderr: stderr.trim(), ms: performance.now() - started });
    });
    // A client refused at once (a wrong password, a stopped engine) may exit before its input is written: that EPIPE
    // is its answer, not the test's failure (the exit code says it).
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/**
 * One statement through the engine's own client from this machine. SQL for postgres and mysql; for redis, the
 * command's words (`SET k v`, split on spaces).
 */
export function hostQuery(engine: TestEngine, t: HostTarget, statement: string): Promise<ClientResult> {
  if (engine === 'postgres') {
    return run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', statement], {
      PGHOST: t.host,
      PGPORT: String(t.port),
      PGUSER: t.username,
      PGPASSWORD: t.password,
      PGDATABASE: t.databaseName,
      PGCONNECT_TIMEOUT: '5',
      PGSSLMODE: t.tls === 'verify' ? 'verify-full' : 'disable',
      ...(t.caFile ? { PGSSLROOTCERT: t.caFile } : {}),
    });
  }
  if (engine === 'mysql') {
    const tls = t.tls === 'verify' ? ['--ssl', `--ssl-ca=${t.caFile}`, '--ssl-verify-server-cert'] : ['--skip-ssl'];
    return run('mariadb', ['--no-defaults', '-h', t.host, '-P', String(t.port), '-u', t.username, '--batch', '--skip-column-names', '--connect-timeout=5', ...tls, t.databaseName, '-e', statement], {
      MYSQL_PWD: t.password,
    });
  }
  const tls = t.tls === 'verify' ? ['--tls', '--cacert', t.caFile ?? ''] : [];
  return run('redis-cli', ['-h', t.host, '-p', String(t.port), '--no-auth-warning', '-e', ...tls, ...statement.split(' ')], { REDISCLI_AUTH: t.password }, 10_000);
}

/** Statements that make and fill a table (a set of keys for redis), and the one that counts its rows. */
export const SCHEMA: Record<TestEngine, { ping: string; create: string[]; count: string; insert: (n: number) => string }> = {
  postgres: { ping: 'SELECT 1', create: ['CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, note text)'], insert: (n) => `INSERT INTO items VALUES (${n}, 'row ${n}')`, count: 'SELECT count(*) FROM items' },
  mysql: { ping: 'SELECT 1', create: ['CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, note text)'], insert: (n) => `INSERT INTO items VALUES (${n}, 'row ${n}')`, count: 'SELECT count(*) FROM items' },
  redis: { ping: 'PING', create: [], insert: (n) => `SET item:${n} row-${n}`, count: 'DBSIZE' },
};

/**
 * Runs `script` with `sh -c` in a throwaway container of `image` on the workspace's private network, the connection URL
 * in its environment (`URL`). The container carries the platform's label, so the platform's cleanup removes it if
 * this does not. Answers the exit code and the output.
 */
export async function inNetwork(
  docker: Docker,
  o: { image: string; workspaceId: string; platformId: string; script: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<{ code: number; output: string }> {
  const container = await docker.createContainer({
    Image: o.image,
    Entrypoint: ['sh', '-c'],
    Cmd: [o.script],
    Env: Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`),
    User: '0',
    Labels: { [LABELS.platform]: o.platformId, 'slipway.test': 'database-client' },
    HostConfig: { NetworkMode: `slipway-wsnet-${o.workspaceId}`, AutoRemove: false },
  });
  try {
    await container.start();
    const waited = (await Promise.race([
      container.wait(),
      new Promise((r) => setTimeout(() => r({ StatusCode: -1 }), o.timeoutMs ?? 20_000).unref()),
    ])) as { StatusCode: number };
    const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return { code: waited.StatusCode, output: demux(logs) };
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** The text of a multiplexed Docker log (8-byte frame headers dropped). */
function demux(buf: Buffer): string {
  let out = '';
  for (let i = 0; i + 8 <= buf.length; ) {
    const len = buf.readUInt32BE(i + 4);
    out += buf.subarray(i + 8, i + 8 + len).toString();
    i += 8 + len;
  }
  return out.trim();
}

/** Polls `read` until `done` holds (or fails with the last value after `timeoutMs`). */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > end) throw new Error(`Timed out after ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    last = await read();
  }
  return last;
}

/** The managed database's container on this machine's engine (the agent's), by its label. */
export async function databaseContainer(docker: Docker, databaseId: string): Promise<string> {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`${LABELS.database}=${databaseId}`] } });
  if (!c) throw new Error(`no container for database ${databaseId}`);
  return c.Id;
}

/** The error replies redis-cli prints (code, then message) for what a test asks. */
const REDIS_ERROR = /^(ERR|WRONGTYPE|LOADING|BUSY|NOAUTH|WRONGPASS|NOPERM|MISCONF|MASTERDOWN|READONLY|OOM|EXECABORT|NOSCRIPT|TRYAGAIN|CLUSTERDOWN)\b/m;

/**
 * A statement through the engine's own client inside the database's container, with the connection's credentials
 * (from `GET …/connection`); answers the output's lines, sorted and joined by commas. SQL for postgres and mysql;
 * for redis, the command's words.
 */
export async function queryInContainer(
  docker: Docker,
  databaseId: string,
  engine: TestEngine,
  c: { username: string; password: string; databaseName: string },
  statement: string,
): Promise<string> {
  const [cmd, env] =
    engine === 'postgres'
      ? [['psql', '-U', c.username, '-d', c.databaseName, '-X', '-tA', '-v', 'ON_ERROR_STOP=1', '-c', statement], [`PGPASSWORD=${c.password}`]]
      : engine === 'mysql'
        ? [['mariadb', '-h127.0.0.1', `-u${c.username}`, '-D', c.databaseName, '-N', '-B', '-e', statement], [`MYSQL_PWD=${c.password}`]]
        : [['redis-cli', '--no-auth-warning', ...statement.split(' ')], [`REDISCLI_AUTH=${c.password}`]];
  const exec = await docker.getContainer(await databaseContainer(docker, databaseId)).exec({ Cmd: cmd, Env: env, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (b: Buffer) => chunks.push(b));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const out = demuxBoth(Buffer.concat(chunks));
  const info = await exec.inspect();
  // redis-cli exits 0 on an error reply and prints it as its code and message: "LOADING Redis is loading the dataset in
  // memory" from a Redis that has just started is no write (a move's writer once counted one as done).
  const failed = engine === 'redis' ? REDIS_ERROR.test(out.stdout) : /^ERR/m.test(out.stdout);
  if (info.ExitCode !== 0 || failed) throw new Error(`${statement}: exit ${info.ExitCode}: ${out.stderr}${out.stdout}`);
  return out.stdout.split('\n').map((s) => s.trim()).filter(Boolean).sort().join(',');
}

function demuxBoth(b: Buffer): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  for (let i = 0; i + 8 <= b.length; ) {
    const size = b.readUInt32BE(i + 4);
    (b[i] === 2 ? err : out).push(b.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
