// Supervision outside systemd (issue 27, item 6), on a platform of its own in a scratch folder (its own settings
// file, run and log folders, API port, database and Redis prefix; the machine's platform is never touched): the
// compiled API under deploy/lib/supervise.sh, driven by deploy/platform.sh as an operator drives it. A supervisor
// killed takes its process with it; `restart` then leaves exactly one API, supervised, the one it started (boot id);
// an orphan of an older supervisor is found by its port and replaced; a port answered by someone else fails `start`
// loudly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from './index';
import { ensureBundles } from './faults/platform';
import { freePort, waitUntil } from './faults/private-services';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..');
const API_BUNDLE = 'apps/api/dist/main.js';

interface Run {
  code: number;
  out: string;
}

describe('supervision outside systemd (deploy/platform.sh, deploy/lib/supervise.sh)', () => {
  let dir: string;
  let database: TestDatabase;
  let port: number;
  let env: Record<string, string>;
  let settings: Record<string, string>;
  const strays: ChildProcess[] = [];

  const runDir = () => path.join(dir, 'run');
  const platform = (...args: string[]): Promise<Run> => platformWith({}, ...args);
  const platformWith = (extra: Record<string, string>, ...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn('bash', [path.join(ROOT, 'deploy/platform.sh'), ...args], { cwd: ROOT, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, out }));
    });
  const health = async (): Promise<{ bootId: string } | null> => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) });
      return (await res.json()) as { bootId: string };
    } catch {
      return null;
    }
  };
  const bootIdFile = async () => (await readFile(path.join(runDir(), 'api.boot-id'), 'utf8')).trim();
  const supervisorPid = async () => Number((await readFile(path.join(runDir(), 'api.pid'), 'utf8')).trim());
  /** Every API process of this platform: the compiled bundle with this platform's marker or on its port. */
  const apis = () => processes().filter((p) => p.cmdline.includes(API_BUNDLE) && !p.cmdline.includes('supervise.sh') && (p.environ.includes(`SLIPWAY_SUPERVISED=${runDir()}/api`) || p.environ.includes(`SLIPWAY_API_PORT=${port}`)));

  beforeAll(async () => {
    ensureBundles();
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-supervision-'));
    await mkdir(path.join(dir, 'control'));
    port = await freePort();
    settings = {
      DATABASE_URL: database.url,
      REDIS_URL: TEST_SERVICES.redisUrl,
      SLIPWAY_REDIS_PREFIX: `slipway-supervision-${randomBytes(3).toString('hex')}`,
      SLIPWAY_API_HOST: '127.0.0.1',
      SLIPWAY_API_PORT: String(port),
      SLIPWAY_PUBLIC_URL: `http://localhost:${port}`,
      SLIPWAY_DATA_DIR: path.join(dir, 'control'),
      SLIPWAY_LOG_LEVEL: 'warn',
    };
    await writeFile(path.join(dir, 'slipway.env'), Object.entries(settings).map(([k, v]) => `${k}=${v}\n`).join(''), { mode: 0o600 });
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      SLIPWAY_ENV_FILE: path.join(dir, 'slipway.env'),
      SLIPWAY_RUN_DIR: runDir(),
      SLIPWAY_LOG_DIR: path.join(dir, 'log'),
      SLIPWAY_START_TIMEOUT: '20',
    };
  });

  afterAll(async () => {
    for (const s of strays) s.kill('SIGKILL');
    if (env) await platform('stop', 'api');
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the API’s supervisor killed (SIGKILL) takes the API with it; `restart api` then runs exactly one API, supervised, the new one', async () => {
    const started = await platform('start', 'api');
    expect(started).toMatchObject({ code: 0, out: expect.stringContaining('api: started') });
    const first = await bootIdFile();
    expect(await health()).toMatchObject({ bootId: first });

    process.kill(await supervisorPid(), 'SIGKILL');
    // The kernel sends the API SIGTERM as its supervisor dies (setpriv --pdeathsig): no orphan keeps the port.
    await waitUntil('the API gone with its supervisor', async () => apis().length === 0, 20_000);
    expect(await health()).toBeNull();

    const restarted = await platform('restart', 'api');
    expect(restarted).toMatchObject({ code: 0, out: expect.stringContaining('api: started') });
    const running = apis();
    expect(running).toHaveLength(1);
    // Supervised: its parent is the supervisor platform.sh recorded, which is deploy/lib/supervise.sh.
    const supervisor = await supervisorPid();
    expect(running[0]!.ppid).toBe(supervisor);
    expect(processes().find((p) => p.pid === supervisor)?.cmdline).toContain('deploy/lib/supervise.sh api');
    // The new one: it answers with the boot id its supervisor wrote, not the first one's.
    const second = await bootIdFile();
    expect(second).not.toBe(first);
    expect(await health()).toMatchObject({ bootId: second });
    expect(running[0]!.environ).toContain(`SLIPWAY_BOOT_ID=${second}`);
  });

  it('finds an orphan of an older supervisor by its port: `status` says so, `start` refuses, `restart` replaces it', async () => {
    await platform('stop', 'api');
    // An API running with no supervisor and no marker (what an older supervise.sh left behind), on this platform's port.
    const orphan = spawn(process.execPath, [path.join(ROOT, API_BUNDLE)], { cwd: ROOT, env: { PATH: env.PATH!, ...settings }, stdio: 'ignore', detached: true });
    strays.push(orphan);
    await waitUntil('the orphan API answering', async () => (await health()) !== null, 30_000);

    expect((await platform('status', 'api')).out).toContain('api: running UNSUPERVISED');
    const refused = await platform('start', 'api');
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain(`pid ${orphan.pid}`);

    const restarted = await platform('restart', 'api');
    expect(restarted).toMatchObject({ code: 0, out: expect.stringContaining('stopping processes that ran unsupervised') });
    expect(ended(orphan)).toBe(true);
    const running = apis();
    expect(running.map((p) => p.ppid)).toEqual([await supervisorPid()]);
    expect(await health()).toMatchObject({ bootId: await bootIdFile() });
  });

  it('fails `start` loudly when the port answers for another process', async () => {
    await platform('stop', 'api');
    const other = spawn(
      process.execPath,
      ['-e', `require('node:http').createServer((q, s) => s.end(JSON.stringify({ ok: true, bootId: 'someone-else' }))).listen(${port}, '127.0.0.1')`],
      { stdio: 'ignore' },
    );
    strays.push(other);
    await waitUntil('the other server answering', async () => (await health())?.bootId === 'someone-else', 10_000);
    const started = await platformWith({ SLIPWAY_START_TIMEOUT: '5' }, 'start', 'api');
    expect(started.code).not.toBe(0);
    expect(started.out).toMatch(/the API answering on 127\.0\.0\.1:\d+ is not the one just started: it says boot id someone-else/);
    other.kill('SIGKILL');
    expect((await platform('stop', 'api')).code).toBe(0);
  });
});

const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

interface Proc {
  pid: number;
  ppid: number;
  cmdline: string;
  environ: string[];
}

/** The machine's processes as /proc shows them (those that end while being read are left out). */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      out.push({ pid: Number(name), ppid, cmdline, environ });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
