// Real PostgreSQL, Redis and Caddy processes of a fault test's own, on ports of their own, so that restarting them
// breaks nobody else's run on a shared machine. Each can be restarted the way an operator's restart looks to the
// platform: PostgreSQL with `pg_ctl restart -m fast` (connections end with 57P01), Redis and Caddy stopped with
// SIGTERM and started again on the same port (Caddy starts from its bootstrap config: routes are gone).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP port nothing listens on right now (the kernel's choice). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 100): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

function run(argv: string[], options: { user?: string } = {}): string {
  const full = options.user && process.getuid?.() === 0 ? ['runuser', '-u', options.user, '--', ...argv] : argv;
  const r = spawnSync(full[0]!, full.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** A process we started and stop with SIGTERM, waiting for it to be gone. */
async function stopChild(child: ChildProcess | null, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}

/** Runs `whileDown` and lasts at least `downMs`: the outage a restart makes, held long enough to observe. */
async function whileDown(o: { downMs?: number; whileDown?: () => Promise<void> }): Promise<void> {
  const until = Date.now() + (o.downMs ?? 0);
  await o.whileDown?.();
  if (Date.now() < until) await sleep(until - Date.now());
}

// ---------------------------------------------------------------------------------------------------- PostgreSQL

/** The newest PostgreSQL server binaries of this machine (Debian: /usr/lib/postgresql/<major>/bin). */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base) ? readdirSync(base).filter((d) => existsSync(path.join(base, d, 'bin/pg_ctl'))) : [];
  majors.sort((a, b) => Number(b) - Number(a));
  if (!majors[0]) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)');
  return path.join(base, majors[0], 'bin');
}

/** A PostgreSQL cluster of its own (initdb in a temporary folder, trust on 127.0.0.1 only), run by pg_ctl. */
export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBin();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-pg-'));
    // initdb refuses to run as root: the cluster belongs to the postgres user when we are root.
    if (process.getuid?.() === 0) chownSync(dir, Number(run(['id', '-u', 'postgres']).trim()), Number(run(['id', '-g', 'postgres']).trim()));
    run([path.join(bin, 'initdb'), '-D', path.join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], { user: 'postgres' });
    const pg = new PrivatePostgres(dir, await freePort(), bin);
    await pg.ctl('start');
    return pg;
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  databaseUrl(name: string): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /**
   * `pg_ctl stop -m fast` (every connection ends with 57P01), `whileDown` (at least `downMs` long), then the same
   * cluster again on the same port.
   */
  async restart(options: { downMs?: number; whileDown?: () => Promise<void> } = {}): Promise<void> {
    await this.ctl('stop');
    await whileDown(options);
    await this.ctl('start');
  }

  async stop(): Promise<void> {
    await this.ctl('stop').catch(() => undefined);
  }

  async remove(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async ctl(action: 'start' | 'restart' | 'stop'): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    run([path.join(this.bin, 'pg_ctl'), '-D', path.join(this.dir, 'data'), '-l', path.join(this.dir, 'log'), '-m', 'fast', '-w', '-t', '60', '-o', options, action], { user: 'postgres' });
  }
}

// --------------------------------------------------------------------------------------------------------- Redis

/** A redis-server of its own, set as BullMQ wants it (AOF every second, noeviction), on a free port. */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-redis-')), await freePort());
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGTERM (Redis writes its AOF and exits), `whileDown`, then the same server again on the same port and folder. */
  async restart(options: { downMs?: number; whileDown?: () => Promise<void> } = {}): Promise<void> {
    await stopChild(this.child);
    await whileDown(options);
    await this.launch();
  }

  async remove(): Promise<void> {
    await stopChild(this.child);
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction', '--save', ''],
      { stdio: 'ignore' },
    );
    await waitUntil(`redis-server on ${this.port}`, () => accepts(this.port), 15_000, 50);
  }
}

// --------------------------------------------------------------------------------------------------------- Caddy

/** A Caddy of its own, from deploy/caddy/bootstrap.json with its own admin and ingress ports. */
export class PrivateCaddy {
  private child: ChildProcess | null = null;

  private constructor(
    readonly dir: string,
    readonly adminPort: number,
    readonly httpPort: number,
  ) {}

  static async start(): Promise<PrivateCaddy> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-caddy-'));
    const caddy = new PrivateCaddy(dir, await freePort(), await freePort());
    const config = JSON.parse((await readFile(path.join(ROOT, 'deploy/caddy/bootstrap.json'), 'utf8')).replace('__HTTP_PORT__', String(caddy.httpPort)));
    config.admin.listen = `127.0.0.1:${caddy.adminPort}`;
    await writeFile(path.join(dir, 'caddy.json'), JSON.stringify(config));
    await mkdir(path.join(dir, 'home'), { recursive: true });
    await caddy.launch();
    return caddy;
  }

  get adminUrl(): string {
    return `http://127.0.0.1:${this.adminPort}`;
  }

  /** SIGTERM, then started again from the bootstrap config: the app routes are gone until the agent puts them back. */
  async restart(): Promise<void> {
    await stopChild(this.child);
    await this.launch();
  }

  async remove(): Promise<void> {
    await stopChild(this.child);
    await rm(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    // HOME and XDG folders of its own: Caddy writes its autosave and data there.
    const env = { ...process.env, HOME: path.join(this.dir, 'home'), XDG_DATA_HOME: path.join(this.dir, 'home'), XDG_CONFIG_HOME: path.join(this.dir, 'home') };
    this.child = spawn('caddy', ['run', '--config', path.join(this.dir, 'caddy.json')], { stdio: 'ignore', env });
    await waitUntil(`Caddy's admin API on ${this.adminPort}`, async () => (await fetch(`${this.adminUrl}/config/`)).ok, 15_000, 50);
  }
}
