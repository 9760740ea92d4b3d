// Idle memory of the platform's processes: resident memory (RSS) of the API, the worker and the agent after
// start-up and after 100 API requests and a few deployments, for the compiled bundles production runs
// (`node apps/<app>/dist/main.js`) side by side with a baseline in the same run (the sources through tsx, as
// the platform ran before). Targets (issue 11): agent <= 60 MB, API <= 150 MB, worker <= 150 MB; a mode whose
// requests or deployments failed is reported as failed and never as meeting a target.
// Usage: npx tsx bench/idle/run.ts [--requests 100] [--deployments 3] [--settle 5]. Needs the machine's
// platform set up (deploy/setup.sh: settings, database, enrolled agent, built bundles); it stops that
// platform for the run and starts it again afterwards. See bench/idle/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('requests', 100);
const DEPLOYMENTS = arg('deployments', 3);
const SETTLE_S = arg('settle', 5);
const ENV_FILE = process.env.SLIPWAY_ENV_FILE ?? '/etc/slipway/slipway.env';
const NODE = path.join(process.env.SLIPWAY_NODE_DIR ?? '/opt/slipway/node', 'bin/node');
const ROLES = ['api', 'worker', 'agent'] as const;
type Role = (typeof ROLES)[number];
const TARGET_MB: Record<Role, number> = { api: 150, worker: 150, agent: 60 };

interface Mode {
  name: string;
  argv: (role: Role) => string[];
}
const MODES: Mode[] = [
  {
    name: 'tsx (source, baseline)',
    argv: (role) => [NODE, path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, `apps/${role}/src/main.ts`), ...(role === 'agent' ? ['run'] : [])],
  },
  {
    name: 'node (compiled)',
    // As deploy/platform.sh and the systemd units start it (SLIPWAY_NODE_FLAGS in deploy/lib/services.sh).
    argv: (role) => [NODE, '--max-semi-space-size=4', path.join(ROOT, `apps/${role}/dist/main.js`), ...(role === 'agent' ? ['run'] : [])],
  },
];

interface Rss {
  /** The process that runs the role's code (for tsx: its child node). */
  main: number;
  /** Every process of the role's process group (tsx parent, its esbuild service…). */
  tree: number;
}
interface ModeResult {
  mode: string;
  startup: Record<Role, Rss>;
  after: Record<Role, Rss>;
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
function group(pgid: number): { pid: number; rssKb: number; cmd: string }[] {
  const out: { pid: number; rssKb: number; cmd: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      out.push({ pid: Number(entry), rssKb: rss ? Number(rss[1]) : 0, cmd });
    } catch {
      // the process ended while we read it
    }
  }
  return out;
}

function rssOf(role: Role, child: ChildProcess): Rss {
  const procs = group(child.pid!);
  // The process that runs the role's code is the node whose command line names the entry file last.
  const mains = procs.filter((p) => p.cmd.includes(`apps/${role}/`) && !p.cmd.includes('tsx/dist/cli.mjs'));
  const main = mains.length ? mains : procs.filter((p) => p.pid === child.pid);
  return { main: main.reduce((s, p) => s + p.rssKb, 0), tree: procs.reduce((s, p) => s + p.rssKb, 0) };
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
  return sent;
}

async function runMode(mode: Mode, env: Record<string, string>): Promise<ModeResult> {
  const base = `http://127.0.0.1:${env.SLIPWAY_API_PORT ?? '7070'}`;
  const children = new Map<Role, ChildProcess>();
  const failures: string[] = [];
  try {
    for (const role of ROLES) {
      const [cmd, ...args] = mode.argv(role);
      const child = spawn(cmd!, args, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: 'ignore' });
      children.set(role, child);
      // The worker and the agent enroll against a listening API.
      if (role === 'api') await waitFor(`${base}/healthz`, 60);
    }
    await waitFor(`${base}/readyz`, 90);
    await sleep(SETTLE_S * 1000);
    const startup = Object.fromEntries(ROLES.map((r) => [r, rssOf(r, children.get(r)!)])) as Record<Role, Rss>;
    const requests = await exercise(base, env.SLIPWAY_PUBLIC_URL ?? base, failures);
    await sleep(SETTLE_S * 1000);
    const after = Object.fromEntries(ROLES.map((r) => [r, rssOf(r, children.get(r)!)])) as Record<Role, Rss>;
    return { mode: mode.name, startup, after, failures, requests };
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

async function main() {
  const env = readEnvFile(ENV_FILE);
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

  const cell = (r: ModeResult, role: Role) => `${mb(r.startup[role].main).toFixed(0)} → ${mb(r.after[role].main).toFixed(0)} (tree ${mb(r.after[role].tree).toFixed(0)})`;
  const [baseline, compiled] = results as [ModeResult, ModeResult];
  process.stdout.write(`\nRSS in MB, after start-up → after the requests (tree: with helper processes), Node ${spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()}\n`);
  process.stdout.write(`| process | target | ${baseline.mode} | ${compiled.mode} | target met (compiled) |\n|---|---|---|---|---|\n`);
  const failed = results.filter((r) => r.failures.length);
  for (const role of ROLES) {
    const worst = Math.max(mb(compiled.startup[role].main), mb(compiled.after[role].main));
    const met = compiled.failures.length ? 'not judged: requests failed' : worst <= TARGET_MB[role] ? 'met' : `NOT met (${worst.toFixed(0)} > ${TARGET_MB[role]})`;
    process.stdout.write(`| ${role} | ≤ ${TARGET_MB[role]} | ${cell(baseline, role)} | ${cell(compiled, role)} | ${met} |\n`);
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
