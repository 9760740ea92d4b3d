// The platform's own processes for fault tests, as production runs them: the compiled bundles
// (`node apps/<app>/dist/main.js`, built by `node deploy/build.mjs`), each under deploy/lib/supervise.sh (the
// supervisor of machines without systemd), in SLIPWAY_MODE=production, against the services given (the fault
// suite's private PostgreSQL, Redis and Caddy; the machine's Docker engine). The agent enrolls as setup does it:
// an enrollment token from the CLI bundle, then `slipway-agent join`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LoopExt4Storage } from '@slipway/agent';
import { LABELS } from '@slipway/core';
import Docker from 'dockerode';
import { removeLabelled } from '../engine';
import { silentLogger } from '../logger';
import { TEST_SERVICES } from '../services';
import { freePort, waitUntil } from './private-services';

const ROOT = path.resolve(__dirname, '../../..');
export const ROLES = ['api', 'worker', 'agent'] as const;
export type Role = (typeof ROLES)[number];

const BUNDLES: Record<Role | 'cli', string> = {
  api: 'apps/api/dist/main.js',
  worker: 'apps/worker/dist/main.js',
  agent: 'apps/agent/dist/main.js',
  cli: 'apps/cli/dist/main.js',
};

/** Compiles the bundles when one is missing or older than the newest source file it was built from. */
export function ensureBundles(): void {
  const missing = Object.values(BUNDLES).some((b) => !existsSync(path.join(ROOT, b)));
  if (!missing && process.env.SLIPWAY_FAULTS_REBUILD === '0') return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'deploy/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node deploy/build.mjs failed: ${r.stderr || r.stdout}`);
}

export interface PlatformServices {
  databaseUrl: string;
  redisUrl: string;
  caddyAdminUrl: string;
}

export class FaultPlatform {
  private readonly supervisors = new Map<Role, ChildProcess>();

  private constructor(
    readonly dir: string,
    readonly env: Record<string, string>,
    readonly apiPort: number,
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  get appsDomain(): string {
    return this.env.SLIPWAY_APPS_DOMAIN!;
  }

  static async start(services: PlatformServices, extra: Record<string, string> = {}): Promise<FaultPlatform> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-platform-'));
    const id = randomBytes(3).toString('hex');
    const apiPort = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      SLIPWAY_MODE: 'production',
      SLIPWAY_LOG_LEVEL: 'info',
      DATABASE_URL: services.databaseUrl,
      REDIS_URL: services.redisUrl,
      SLIPWAY_REDIS_PREFIX: `slipway-faults-${id}`,
      SLIPWAY_API_HOST: '127.0.0.1',
      SLIPWAY_API_PORT: String(apiPort),
      SLIPWAY_PUBLIC_URL: `http://localhost:${apiPort}`,
      SLIPWAY_SESSION_SECRET: randomBytes(32).toString('hex'),
      SLIPWAY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SLIPWAY_APPS_DOMAIN: `faults-${id}.localhost`,
      SLIPWAY_DATA_DIR: path.join(dir, 'control'),
      SLIPWAY_AGENT_DATA_DIR: path.join(dir, 'agent'),
      SLIPWAY_AGENT_LISTEN: `127.0.0.1:${await freePort()}`,
      SLIPWAY_AGENT_NODE_NAME: `faults-${id}`,
      SLIPWAY_AGENT_PUBLIC_IPV4: '127.0.0.1',
      SLIPWAY_CADDY_ADMIN_URL: services.caddyAdminUrl,
      SLIPWAY_NODE_HEALTH_INTERVAL_MS: '2000',
      // This platform's identity on the shared Docker engine: its reconciler never touches another platform's containers.
      SLIPWAY_PLATFORM_ID: `faults-${id}`,
      ...extra,
    };
    await mkdir(env.SLIPWAY_DATA_DIR!, { recursive: true });
    await mkdir(env.SLIPWAY_AGENT_DATA_DIR!, { recursive: true });
    const platform = new FaultPlatform(dir, env, apiPort);
    return platform;
  }

  /** API and worker, then the agent's enrollment and the agent; resolves once /readyz answers 200. */
  async boot(beforeWorker?: () => Promise<void>): Promise<void> {
    this.supervise('api');
    await waitUntil('the API /healthz', async () => (await fetch(`${this.base}/healthz`)).ok, 60_000);
    await beforeWorker?.();
    this.supervise('worker');
    const token = JSON.parse(this.runBundle('cli', ['enroll-token', 'create', '--json'])).token as string;
    this.runBundle('agent', ['join', '--url', this.base, '--token', token]);
    this.supervise('agent');
    await this.ready(90_000);
  }

  /** Waits until GET /readyz answers 200; resolves with the milliseconds it took. */
  ready(timeoutMs = 60_000): Promise<number> {
    return waitUntil('GET /readyz 200', async () => (await fetch(`${this.base}/readyz`, { signal: AbortSignal.timeout(5_000) })).status === 200, timeoutMs, 100);
  }

  async readyz(): Promise<{ status: number; body: { ok: boolean; checks: { name: string; ok: boolean; error?: string }[] } }> {
    const res = await fetch(`${this.base}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: (await res.json()) as never };
  }

  /** The pid of the role's process (the supervisor's child); null while the supervisor is between two runs. */
  pid(role: Role): number | null {
    try {
      const pid = Number(readFileSync(path.join(this.dir, `${role}.child.pid`), 'utf8').trim());
      process.kill(pid, 0);
      return pid;
    } catch {
      return null;
    }
  }

  /** SIGKILL the role's process; its supervisor starts it again. Answers the pid killed. */
  kill(role: Role): number {
    const pid = this.pid(role);
    if (!pid) throw new Error(`${role} is not running`);
    process.kill(pid, 'SIGKILL');
    return pid;
  }

  /** Every supervisor still runs, and each has its process running. */
  running(): Record<Role, boolean> {
    return Object.fromEntries(ROLES.map((r) => [r, this.supervisors.get(r)?.exitCode === null && this.pid(r) !== null])) as Record<Role, boolean>;
  }

  log(role: Role): string {
    try {
      return readFileSync(path.join(this.dir, `${role}.log`), 'utf8');
    } catch {
      return '';
    }
  }

  /** Stops every supervisor (SIGTERM, forwarded to its process), agent first; removes the folder. */
  async stop(keepDir = false): Promise<void> {
    for (const role of [...ROLES].reverse()) {
      const s = this.supervisors.get(role);
      if (!s || s.exitCode !== null) continue;
      const gone = new Promise((r) => s.once('exit', r));
      s.kill('SIGTERM');
      const timer = setTimeout(() => {
        const pid = this.pid(role);
        if (pid) process.kill(pid, 'SIGKILL');
        s.kill('SIGKILL');
      }, 15_000);
      await gone;
      clearTimeout(timer);
    }
    if (keepDir) return;
    // What this platform left on the shared engine (its own label only): containers, then their networks. A database's
    // container left behind restarts for ever on its removed data folder.
    const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
    await removeLabelled(docker, `${LABELS.platform}=${this.env.SLIPWAY_PLATFORM_ID}`);
    // The agent's project folders are loop-mounted ext4 images on immutable mount points: unmounted and freed first.
    const agentDir = path.join(this.dir, 'agent');
    await new LoopExt4Storage({ volumesDir: path.join(agentDir, 'volumes'), storageDir: path.join(agentDir, 'storage'), logger: silentLogger }).teardown();
    await rm(this.dir, { recursive: true, force: true });
  }

  private supervise(role: Role): void {
    const out = openSync(path.join(this.dir, `${role}.log`), 'a');
    const argv = [process.execPath, '--max-semi-space-size=4', '--v8-pool-size=2', path.join(ROOT, BUNDLES[role]), ...(role === 'agent' ? ['run'] : [])];
    const child = spawn('bash', [path.join(ROOT, 'deploy/lib/supervise.sh'), role, path.join(this.dir, `${role}.child.pid`), '--', ...argv], {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', out, out],
    });
    this.supervisors.set(role, child);
  }

  private runBundle(bundle: 'cli' | 'agent', args: string[]): string {
    const r = spawnSync(process.execPath, [path.join(ROOT, BUNDLES[bundle]), ...args], { cwd: ROOT, env: this.env, encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${bundle} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  }
}
