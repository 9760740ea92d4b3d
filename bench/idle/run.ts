// Idle memory of the platform's processes: resident memory (RSS) of the API, the worker and the agent after
// start-up and after 100 API requests and a few deployments, for the compiled bundles production runs
// (`node apps/<app>/dist/main.js`) side by side with a baseline in the same run (the sources through tsx, as
// the platform ran before). Targets (issue 11): agent <= 60 MB, API <= 150 MB, worker <= 150 MB; a mode whose
// requests or deployments failed is reported as failed and never as meeting a target.
// With `--apps N` (issue 34: agent <= 120 MB at 1,000 apps) it then deploys N tiny apps (4 per workspace), reads RSS
// at N, deletes them all and reads it again: the growth per app of each process, and whether deletion gives it back.
// Usage: npx tsx bench/idle/run.ts [--requests 100] [--deployments 3] [--settle 5] [--modes tsx,compiled]
//   [--apps N --concurrency 4 --settle-apps 70] [--heap DIR --heap-roles agent,worker] [--flags '…'] [--agent-flags '…']
//   [--base-root ../other-checkout [--base-flags '…']]. Needs the machine's
// platform set up (deploy/setup.sh: settings, database, enrolled agent, built bundles); it stops that
// platform for the run and starts it again afterwards. See bench/idle/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { ensureTinyImage, pool, TINY_IMAGE } from '../lib/tiny-image';

const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('requests', 100);
const DEPLOYMENTS = arg('deployments', 3);
const SETTLE_S = arg('settle', 5);
const APPS = arg('apps', 0);
const CONCURRENCY = arg('concurrency', 4);
const text = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
/** Heap snapshots of each process (V8's --heapsnapshot-signal) at each measuring point go there; bench/idle/heap-diff.ts compares two. */
const HEAP_DIR = text('heap') ? path.resolve(text('heap')!) : null;
const HEAP_ROLES = (text('heap-roles') ?? 'agent,worker').split(',');
/** A `NAME=(…)` list of deploy/lib/services.sh (platform.sh and the units start the processes with it). */
function servicesList(name: string): string {
  const m = new RegExp(`^${name}=\\(([^)]*)\\)`, 'm').exec(readFileSync(path.join(ROOT, 'deploy/lib/services.sh'), 'utf8'));
  if (!m) throw new Error(`no ${name}=(…) line in deploy/lib/services.sh`);
  return m[1]!;
}
/** The V8 flags the platform's processes run with: SLIPWAY_NODE_FLAGS. */
const platformFlags = () => servicesList('SLIPWAY_NODE_FLAGS');
const flagList = (t: string) => t.split(/\s+/).filter(Boolean);
/** The compiled processes' V8 flags: the platform's unless told otherwise (to measure others). */
const FLAGS = flagList(text('flags') ?? platformFlags());
const AGENT_FLAGS = text('agent-flags') === undefined ? FLAGS : flagList(text('agent-flags')!);
/** The agent's environment beyond its settings (SLIPWAY_AGENT_ENV, e.g. MALLOC_ARENA_MAX=2), or --agent-env's ('' for none). */
const AGENT_ENV: Record<string, string> = Object.fromEntries(
  flagList(text('agent-env') ?? servicesList('SLIPWAY_AGENT_ENV')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
/** The --base-root bundles' flags (default: the same), e.g. the flags that checkout's platform ran with. */
const BASE_FLAGS = text('base-flags') === undefined ? FLAGS : flagList(text('base-flags')!);
const WANTED_MODES = (text('modes') ?? 'tsx,compiled').split(',');
/** Another checkout's compiled bundles (e.g. the branch this one started from), run first as a baseline in the same run. */
const BASE_ROOT = text('base-root') ? path.resolve(text('base-root')!) : null;
/** Seconds waited at N apps and after their deletion (a metrics cycle, a reconcile pass and the first folder measurement happen at N). */
const SETTLE_APPS_S = arg('settle-apps', 70);
const ENV_FILE = process.env.SLIPWAY_ENV_FILE ?? '/etc/slipway/slipway.env';
const NODE = path.join(process.env.SLIPWAY_NODE_DIR ?? '/opt/slipway/node', 'bin/node');
const ROLES = ['api', 'worker', 'agent'] as const;
type Role = (typeof ROLES)[number];
const TARGET_MB: Record<Role, number> = { api: 150, worker: 150, agent: 60 };

interface Mode {
  name: string;
  argv: (role: Role) => string[];
}
const MODES: Mode[] = ([
  {
    name: 'tsx (source, baseline)',
    argv: (role) => [NODE, path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, `apps/${role}/src/main.ts`), ...(role === 'agent' ? ['run'] : [])],
  },
  ...(BASE_ROOT
    ? [
        {
          name: `base (compiled, ${path.basename(BASE_ROOT)})`,
          argv: (role: Role) => [NODE, ...(role === 'agent' && text('base-flags') === undefined ? AGENT_FLAGS : BASE_FLAGS), path.join(BASE_ROOT, `apps/${role}/dist/main.js`), ...(role === 'agent' ? ['run'] : [])],
        },
      ]
    : []),
  {
    name: 'node (compiled)',
    // As deploy/platform.sh and the systemd units start it (SLIPWAY_NODE_FLAGS in deploy/lib/services.sh).
    argv: (role) => [NODE, ...(role === 'agent' ? AGENT_FLAGS : FLAGS), path.join(ROOT, `apps/${role}/dist/main.js`), ...(role === 'agent' ? ['run'] : [])],
  },
] satisfies Mode[]).filter((m) => m.name.startsWith('base') || WANTED_MODES.some((w) => m.name.includes(w)));

/** Every node process of a role (tsx's child too) writes a heap snapshot on SIGUSR2 when --heap is given. */
const HEAP_ENV: Record<string, string> = HEAP_DIR ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${HEAP_DIR}` } : {};

interface Rss {
  /** The process that runs the role's code (for tsx: its child node). */
  main: number;
  /** Every process of the role's process group (tsx parent, its esbuild service…). */
  tree: number;
  /** CPU seconds (user + system) the main process has used since it started. */
  cpuS: number;
}
interface ModeResult {
  mode: string;
  startup: Record<Role, Rss>;
  after: Record<Role, Rss>;
  /** With --apps: at N apps, and once they are all deleted again. */
  atApps?: Record<Role, Rss>;
  deleted?: Record<Role, Rss>;
  live?: number;
  failures: string[];
  requests: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (kb: number) => kb / 1024;

function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

/** Processes of a process group, with their RSS (kB) and command line. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
function group(pgid: number): { pid: number; rssKb: number; cpuS: number; cmd: string }[] {
  const out: { pid: number; rssKb: number; cpuS: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      out.push({ pid: Number(entry), rssKb: rss ? Number(rss[1]) : 0, cpuS: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS, cmd });
    } catch {
      // the process ended while we read it
    }
  }
  return out;
}

function mainProcesses(role: Role, child: ChildProcess) {
  const procs = group(child.pid!);
  // The process that runs the role's code is the node whose command line names the entry file last.
  const mains = procs.filter((p) => p.cmd.includes(`apps/${role}/`) && !p.cmd.includes('tsx/dist/cli.mjs'));
  return { procs, main: mains.length ? mains : procs.filter((p) => p.pid === child.pid) };
}

function rssOf(role: Role, child: ChildProcess): Rss {
  const { procs, main } = mainProcesses(role, child);
  return { main: main.reduce((s, p) => s + p.rssKb, 0), tree: procs.reduce((s, p) => s + p.rssKb, 0), cpuS: main.reduce((s, p) => s + p.cpuS, 0) };
}

/** Asks each role's process for a heap snapshot (SIGUSR2) and waits until it is written: HEAP_DIR/<mode>-<role>-<label>.heapsnapshot. */
async function snapshots(children: Map<Role, ChildProcess>, mode: string, label: string): Promise<void> {
  if (!HEAP_DIR) return;
  for (const [role, child] of children) {
    if (!HEAP_ROLES.includes(role)) continue;
    const pid = mainProcesses(role, child).main[0]?.pid;
    if (!pid) continue;
    const before = new Set(readdirSync(HEAP_DIR));
    process.kill(pid, 'SIGUSR2');
    const deadline = Date.now() + 120_000;
    let file: string | undefined;
    let size = -1;
    for (;;) {
      await sleep(500);
      file ??= readdirSync(HEAP_DIR).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
      if (file) {
        const now = statSync(path.join(HEAP_DIR, file)).size;
        if (now > 0 && now === size) break;
        size = now;
      }
      if (Date.now() > deadline) throw new Error(`no heap snapshot of the ${role} within 120 s`);
    }
    renameSync(path.join(HEAP_DIR, file), path.join(HEAP_DIR, `${mode.split(' ')[0]}-${role}-${label}.heapsnapshot`));
  }
}

function platform(action: 'start' | 'stop' | 'status'): string {
  const r = spawnSync('bash', [path.join(ROOT, 'deploy/platform.sh'), action], { encoding: 'utf8' });
  return r.stdout;
}

async function waitFor(url: string, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(300);
  }
  throw new Error(`${url} did not answer 200 within ${seconds} s`);
}

/** Signs up, creates a workspace, a token and a web app; then REQUESTS reads and DEPLOYMENTS deployments. */
async function exercise(base: string, origin: string, failures: string[]): Promise<number> {
  let sent = 0;
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    sent++;
    try {
      const res = await fetch(base + url, {
        method,
        headers: { 'content-type': 'application/json', origin, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 400) failures.push(`${method} ${url}: ${res.status} ${text.slice(0, 120)}`);
      return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch (e) {
      failures.push(`${method} ${url}: ${(e as Error).message}`);
      return { status: 0, headers: new Headers(), json: {} as Record<string, unknown> };
    }
  };
  const email = `idle-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  const signup = await call('POST', '/v1/auth/signup', { email, password: 'correct horse battery', name: 'Idle' });
  const cookie = signup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const ws = (await call('POST', '/v1/workspaces', { name: 'Idle bench' }, { cookie })).json.id as string;
  const token = (await call('POST', `/v1/workspaces/${ws}/tokens`, { name: 'idle' }, { cookie })).json.token as string;
  const auth = { authorization: `Bearer ${token}` };
  const apps = `/v1/workspaces/${ws}/apps`;
  const app = (await call('POST', apps, { name: 'idle site', kind: 'web', source: 'image', image: 'slipway/static:2', memoryMb: 128, cpuMillis: 250 }, auth)).json.id as string;
  if (!ws || !token || !app) return sent;

  let lastDeployment = '';
  for (let i = 0; i < DEPLOYMENTS; i++) {
    const dep = (await call('POST', `${apps}/${app}/deployments`, {}, auth)).json.id as string;
    if (!dep) continue;
    lastDeployment = dep;
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = (await call('GET', `${apps}/${app}/deployments/${dep}`, undefined, auth)).json.status;
      if (status === 'live') break;
      if (status === 'failed' || status === 'cancelled' || Date.now() > deadline) {
        failures.push(`deployment ${i + 1} ended ${String(status)}`);
        break;
      }
      await sleep(500);
    }
  }
  // Reads that touch every process: the database (API), the agent over gRPC (runtime logs, readiness).
  const reads = [`/v1/workspaces/${ws}`, apps, `${apps}/${app}`, `${apps}/${app}/logs`, `${apps}/${app}/deployments`, `${apps}/${app}/deployments/${lastDeployment}/logs`];
  for (let i = 0; i < REQUESTS; i++) await call('GET', reads[i % reads.length]!, undefined, auth);
  await call('DELETE', `${apps}/${app}`, undefined, auth);
  // The workspace too: it holds a reservation of the machine's server, and runs of this bench filled that server until
  // no workspace could be made (the fresh check's signup then got 503).
  await call('DELETE', `/v1/workspaces/${ws}`, undefined, { cookie });
  return sent;
}

/**
 * APPS tiny web apps over APPS/4 workspaces (the trial plan's disk allows 4 apps each), CONCURRENCY created and
 * deployed at a time until live. Returns how many went live and a function that deletes them all and waits until
 * no container of theirs is left.
 */
async function fill(base: string, origin: string, failures: string[]): Promise<{ live: number; removeAll: () => Promise<void> }> {
  const docker = new Docker();
  await ensureTinyImage(docker);
  const call = async (method: string, url: string, cookie: string, body?: unknown) => {
    const res = await fetch(base + url, { method, headers: { 'content-type': 'application/json', origin, ...(cookie ? { cookie } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const t = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${t.slice(0, 160)}`);
    return { headers: res.headers, json: t ? (JSON.parse(t) as Record<string, unknown>) : {} };
  };
  const email = `apps-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  const signup = await call('POST', '/v1/auth/signup', '', { email, password: 'correct horse battery', name: 'Apps' });
  const cookie = signup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const made = await pool(Array.from({ length: Math.ceil(APPS / 4) }, (_, i) => i), CONCURRENCY, async (i) =>
    call('POST', '/v1/workspaces', cookie, { name: `apps ${i}` }).then((r) => r.json.id as string, (e: Error) => e),
  );
  const workspaces = made.filter((w): w is string => typeof w === 'string');
  const refused = made.find((w): w is Error => w instanceof Error);
  if (refused) {
    // Nothing is left behind: each workspace holds a reservation of the server (a run that stopped here once left 25).
    await pool(workspaces, CONCURRENCY, (ws) => call('DELETE', `/v1/workspaces/${ws}`, cookie).catch(() => undefined));
    throw new Error(`${made.length - workspaces.length} of ${made.length} workspaces were refused (${refused.message}); with no_capacity, see "Per app" in bench/idle/README.md: the node's offered capacity`);
  }
  let live = 0;
  await pool(Array.from({ length: APPS }, (_, i) => i), CONCURRENCY, async (i) => {
    try {
      const apps = `/v1/workspaces/${workspaces[Math.floor(i / 4)]}/apps`;
      const app = (await call('POST', apps, cookie, { name: `tiny ${i}`, kind: 'web', source: 'image', image: TINY_IMAGE, memoryMb: 128, cpuMillis: 100, port: 8080 })).json.id as string;
      const dep = (await call('POST', `${apps}/${app}/deployments`, cookie, {})).json.id as string;
      const deadline = Date.now() + 180_000;
      for (;;) {
        const got = (await call('GET', `${apps}/${app}/deployments/${dep}`, cookie)).json;
        if (got.status === 'live') return void live++;
        if (got.status === 'failed' || got.status === 'cancelled' || Date.now() > deadline) throw new Error(`app ${i}: deployment ${String(got.status)} ${String(got.failureReason ?? '')}`);
        await sleep(300);
      }
    } catch (e) {
      failures.push((e as Error).message);
    }
  });
  const removeAll = async () => {
    await pool(workspaces, CONCURRENCY, async (ws) => call('DELETE', `/v1/workspaces/${ws}`, cookie).catch((e: Error) => failures.push(e.message)));
    // The engine removes a few containers a second at 1,000 (bench/density): 180 s, or more for more apps.
    const waitS = Math.max(180, APPS * 0.6);
    const deadline = Date.now() + waitS * 1000;
    for (;;) {
      const left = (await docker.listContainers({ all: true, filters: { label: ['slipway.workspace'] } })).filter((c) => workspaces.includes(c.Labels['slipway.workspace']!));
      if (!left.length) return;
      if (Date.now() > deadline) return void failures.push(`${left.length} containers left ${waitS} s after the workspaces were deleted`);
      await sleep(1000);
    }
  };
  return { live, removeAll };
}

async function runMode(mode: Mode, env: Record<string, string>): Promise<ModeResult> {
  const base = `http://127.0.0.1:${env.SLIPWAY_API_PORT ?? '7070'}`;
  const children = new Map<Role, ChildProcess>();
  const failures: string[] = [];
  try {
    for (const role of ROLES) {
      const [cmd, ...args] = mode.argv(role);
      const child = spawn(cmd!, args, { cwd: ROOT, env: { ...process.env, ...env, ...(role === 'agent' ? AGENT_ENV : {}), ...HEAP_ENV }, detached: true, stdio: 'ignore' });
      children.set(role, child);
      // The worker and the agent enroll against a listening API.
      if (role === 'api') await waitFor(`${base}/healthz`, 60);
    }
    await waitFor(`${base}/readyz`, 90);
    await sleep(SETTLE_S * 1000);
    const startup = Object.fromEntries(ROLES.map((r) => [r, rssOf(r, children.get(r)!)])) as Record<Role, Rss>;
    const requests = await exercise(base, env.SLIPWAY_PUBLIC_URL ?? base, failures);
    await sleep(SETTLE_S * 1000);
    const rssNow = () => Object.fromEntries(ROLES.map((r) => [r, rssOf(r, children.get(r)!)])) as Record<Role, Rss>;
    const after = rssNow();
    // A heap snapshot grows the process's RSS for good (malloc keeps what it took): with --apps, the first one is taken
    // only after RSS at N was read, so the growth per app is measured before any snapshot.
    if (!APPS) await snapshots(children, mode.name, 'idle');
    if (!APPS) return { mode: mode.name, startup, after, failures, requests };
    process.stdout.write(`${mode.name}: deploying ${APPS} tiny apps, ${CONCURRENCY} at a time…\n`);
    const filled = await fill(base, env.SLIPWAY_PUBLIC_URL ?? base, failures);
    // At least one metrics cycle (10 s) and the new apps' first folder measurement (within 60 s) happen at N.
    await sleep(SETTLE_APPS_S * 1000);
    const atApps = rssNow();
    await snapshots(children, mode.name, `apps${APPS}`);
    await filled.removeAll();
    await sleep(SETTLE_APPS_S * 1000);
    const deleted = rssNow();
    await snapshots(children, mode.name, 'deleted');
    return { mode: mode.name, startup, after, atApps, deleted, live: filled.live, failures, requests };
  } finally {
    for (const child of children.values()) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await Promise.all([...children.values()].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  }
}

/**
 * RSS (MB) of the least an agent of this architecture can be on this Node, with the agent's flags (agent-floor.mjs:
 * grpc-js serving the agent's services, pino, the core modules its work needs, none of Slipway's code), after the same
 * settle: the floor the agent's target is read against.
 */
async function agentFloorMb(): Promise<number> {
  const child = spawn(NODE, [...AGENT_FLAGS, path.join(__dirname, 'agent-floor.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b: Buffer) => (/agent floor ready/.test(b.toString()) ? resolve() : undefined));
      child.once('exit', (code) => reject(new Error(`bench/idle/agent-floor.mjs exited with ${code}`)));
    });
    await sleep(SETTLE_S * 1000);
    const m = /^Rss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/smaps_rollup`, 'utf8'));
    return mb(Number(m?.[1] ?? 0));
  } finally {
    child.kill('SIGTERM');
  }
}

async function main() {
  const env = readEnvFile(ENV_FILE);
  if (HEAP_DIR) mkdirSync(HEAP_DIR, { recursive: true });
  const wasRunning = /running/.test(platform('status'));
  if (wasRunning) platform('stop');
  const results: ModeResult[] = [];
  try {
    for (const mode of MODES) {
      process.stdout.write(`${mode.name}: starting, settling ${SETTLE_S} s, ${REQUESTS} requests and ${DEPLOYMENTS} deployments…\n`);
      results.push(await runMode(mode, env));
    }
  } finally {
    if (wasRunning) platform('start');
  }
  const floorMb = await agentFloorMb();

  const cell = (r: ModeResult, role: Role) => `${mb(r.startup[role].main).toFixed(0)} → ${mb(r.after[role].main).toFixed(0)} (tree ${mb(r.after[role].tree).toFixed(0)})`;
  const judged = results[results.length - 1]!;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  process.stdout.write(`\nRSS in MB, after start-up → after the requests (tree: with helper processes), Node ${spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()}, flags ${FLAGS.join(' ')} (agent ${AGENT_FLAGS.join(' ')}${Object.keys(AGENT_ENV).length ? `, ${Object.entries(AGENT_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}${BASE_ROOT ? `; base ${BASE_FLAGS.join(' ')}` : ''}), load ${load}\n`);
  process.stdout.write(`| process | target | ${results.map((r) => r.mode).join(' | ')} | target met (${judged.mode}) |\n|---|---|${results.map(() => '---|').join('')}---|\n`);
  const failed = results.filter((r) => r.failures.length);
  for (const role of ROLES) {
    const worst = Math.max(mb(judged.startup[role].main), mb(judged.after[role].main));
    const met = judged.failures.length ? 'not judged: requests failed' : worst <= TARGET_MB[role] ? 'met' : `NOT met (${worst.toFixed(0)} > ${TARGET_MB[role]})`;
    process.stdout.write(`| ${role} | ≤ ${TARGET_MB[role]} | ${results.map((r) => cell(r, role)).join(' | ')} | ${met} |\n`);
  }
  process.stdout.write(
    `\nThe agent's floor on this Node, same flags and settle (bench/idle/agent-floor.mjs: grpc-js serving the agent's services, pino, TLS/HTTP/2/zlib/crypto, none of Slipway's code): ${floorMb.toFixed(0)} MB` +
      `${floorMb > TARGET_MB.agent ? ` — over the agent's ${TARGET_MB.agent} MB target before any of the agent's own work` : ''}; the agent is ${(mb(judged.after.agent.main) - floorMb).toFixed(0)} MB above it after the requests\n`,
  );
  // What the same start-up and the same requests cost each process in CPU: a flag that saves memory by working harder shows here.
  process.stdout.write(`\nCPU seconds of the main process: start-up → after the requests (difference)\n| process | ${results.map((r) => r.mode).join(' | ')} |\n|---|${results.map(() => '---|').join('')}\n`);
  for (const role of ROLES) {
    process.stdout.write(`| ${role} | ${results.map((r) => `${r.startup[role].cpuS.toFixed(2)} → ${r.after[role].cpuS.toFixed(2)} (${(r.after[role].cpuS - r.startup[role].cpuS).toFixed(2)})`).join(' | ')} |\n`);
  }
  for (const r of results.filter((x) => x.atApps && x.deleted)) {
    process.stdout.write(`\n${r.mode}: ${r.live}/${APPS} apps live. RSS in MB idle → at ${APPS} apps → all deleted; growth per app\n| process | idle | at ${APPS} | deleted | per app |\n|---|---|---|---|---|\n`);
    for (const role of ROLES) {
      const perAppKb = (r.atApps![role].main - r.after[role].main) / Math.max(1, r.live ?? 0);
      process.stdout.write(`| ${role} | ${mb(r.after[role].main).toFixed(0)} | ${mb(r.atApps![role].main).toFixed(0)} | ${mb(r.deleted![role].main).toFixed(0)} | ${perAppKb.toFixed(0)} kB |\n`);
    }
    const agentAt1000 = mb(r.after.agent.main + ((r.atApps!.agent.main - r.after.agent.main) / Math.max(1, r.live ?? 0)) * 1000);
    process.stdout.write(`agent at 1,000 apps at this rate: ${agentAt1000.toFixed(0)} MB (target ≤ 120: ${r.failures.length ? 'not judged: requests failed' : agentAt1000 <= 120 ? 'met' : 'NOT met'})\n`);
  }
  for (const r of results) {
    process.stdout.write(`${r.mode}: ${r.requests} requests, ${r.failures.length} failed${r.failures.length ? `:\n  ${r.failures.slice(0, 5).join('\n  ')}` : ''}\n`);
  }
  if (failed.length) process.exitCode = 1;
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
