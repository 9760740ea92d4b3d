// Faults against the running platform (issue 11): its own processes from the compiled bundles under their
// supervisor, its own PostgreSQL cluster, Redis and Caddy (real processes on ports of their own, so restarting them
// breaks nobody else's run) with its own HAProxy in front as the ingress (decision 0040; SLIPWAY_TEST_INGRESS=caddy:
// Caddy alone), and the machine's Docker engine. Each fault strikes in the middle of a deployment; after
// it the deployment ends live or failed with a reason, no row stays in a running state, the app serves, the next
// deployment works, the app's status matches its container, and every platform process is (again) running.
// Restarting the Docker engine touches everything on the machine: it runs only with SLIPWAY_FAULTS_DOCKER=1
// (deploy/test.sh sets it on CI's dedicated machine). The recovery figures are printed at the end.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SETTINGS } from '@slipway/config/src/settings';
import { BullJobQueue } from '@slipway/queue';
import Docker from 'dockerode';
import Redis from 'ioredis';
import { Client } from 'pg';
import { ApiClient } from '../api-client';
import { createWorkspace, signUp } from '../factories';
import { startTestHaproxy, TEST_INGRESS_HAPROXY, type TestHaproxy } from '../haproxy';
import { getWithHost } from '../http';
import { TEST_SERVICES } from '../services';
import { requires } from '../skips';
import { ensureBundles, FaultPlatform, ROLES, type Role } from './platform';
import { PrivateCaddy, PrivatePostgres, PrivateRedis, waitUntil } from './private-services';

// SLIPWAY_FAULTS_DOCKER=1 restarts the machine's Docker engine (CI's machine is its own). A second dockerd of the
// suite's own is no way around it: on its restart it deleted docker0, the machine engine's bridge (tried here).
// Under CI=true a run without it fails: CI is expected to cover this fault.
const withDockerFault = requires({ met: process.env.SLIPWAY_FAULTS_DOCKER === '1', reason: 'restarts the machine\'s Docker engine: set SLIPWAY_FAULTS_DOCKER=1 on a machine of its own', ci: true }).it;
const IMAGES = { fast: 'slipway-test/faults:fast', slow: 'slipway-test/faults:slow' };
// Answers its VERSION on every path; the slow one waits 6 s before it listens, so a fault lands mid-rollout.
const SERVER = `require('node:http').createServer((q, s) => s.end(process.env.VERSION + '\\n')).listen(Number(process.env.PORT || 8080));
process.on('SIGTERM', () => process.exit(0));`;
// Each fault takes 15-40 s here (a 6 s rollout, the fault, the recovery, the next deployment).
const FAULT_TIMEOUT_MS = 180_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figure {
  fault: string;
  /** From the fault to GET /readyz answering 200 again. */
  readyMs: number;
  /** From the fault to the deployment's end (live or failed). */
  finishedMs: number;
  outcome: string;
  /** Worker killed: from the SIGKILL to its job running again. */
  jobAgainMs?: number;
  /** Process killed: from the SIGKILL to its supervisor's new process. */
  restartedMs?: number;
}

describe('faults against the running platform', () => {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const figures: Figure[] = [];
  let pg: PrivatePostgres;
  let redis: PrivateRedis;
  let caddy: PrivateCaddy;
  /** The ingress in front of Caddy (the default): the agent's app routes are its map's entries. */
  let haproxy: TestHaproxy | null = null;
  let platform: FaultPlatform;
  let sql: Client;
  let client: ApiClient;
  let appsPath: string;
  let app: { id: string; url: string };

  beforeAll(async () => {
    ensureBundles();
    await buildImages(docker);
    [pg, redis, caddy] = await Promise.all([PrivatePostgres.start(), PrivateRedis.start(), PrivateCaddy.start()]);
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE slipway');
    await admin.end();
    if (TEST_INGRESS_HAPROXY) haproxy = await startTestHaproxy({ caddyHttpAddress: `127.0.0.1:${caddy.httpPort}` });
    platform = await FaultPlatform.start(
      { databaseUrl: pg.databaseUrl('slipway'), redisUrl: redis.url, caddyAdminUrl: caddy.adminUrl },
      haproxy ? { SLIPWAY_HAPROXY_DIR: haproxy.dir } : {},
    );
    await platform.boot(guardOtherPlatforms);
    sql = connectSql();
    client = new ApiClient(platform.base, { origin: `http://localhost:${platform.apiPort}` });
    await signUp(client);
    const ws = await createWorkspace(client);
    appsPath = `/v1/workspaces/${ws.id}/apps`;
    const created = await client.post(appsPath, { name: 'faults', kind: 'web', source: 'image', image: IMAGES.fast, memoryMb: 128, healthPath: '/' });
    expect(created.status).toBe(201);
    app = created.body;
    const first = await deploy(IMAGES.fast);
    expect(await finished(first, 60_000)).toMatchObject({ status: 'live' });
  }, 240_000);

  afterAll(async () => {
    if (figures.length) {
      const rows = figures.map((f) => `${f.fault.padEnd(26)} ready ${ms(f.readyMs)}  deployment ${f.outcome.padEnd(6)} ${ms(f.finishedMs)}${f.restartedMs !== undefined ? `  process back ${ms(f.restartedMs)}` : ''}${f.jobAgainMs !== undefined ? `  job running again ${ms(f.jobAgainMs)}` : ''}`);
      console.log(`Recovery after each fault (from the fault):\n${rows.join('\n')}`);
    }
    clearInterval(markOnline);
    await sql?.end().catch(() => undefined);
    if (platform) {
      // The app's containers, network and route go with the platform.
      for (const c of await docker.listContainers({ all: true, filters: { label: [`slipway.app=${app?.id}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      await platform.stop(process.env.SLIPWAY_FAULTS_KEEP === '1');
    }
    await Promise.allSettled([pg?.remove(), redis?.remove(), caddy?.remove(), haproxy?.stop()]);
  }, 120_000);

  /**
   * Until every Docker object carries its platform's identity (SLIPWAY_PLATFORM_ID) and orphan removal is scoped
   * to it, this platform's reconciler would remove every container on the shared engine whose workspace it does not
   * know: other test runs' and other platforms'. Without that setting the maintenance queue (reconcile, node health)
   * stays paused and the node is marked online by hand.
   */
  async function guardOtherPlatforms(): Promise<void> {
    if (SETTINGS.some((s) => s.env === 'SLIPWAY_PLATFORM_ID')) return;
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queues = new BullJobQueue({ connection, prefix: platform.env.SLIPWAY_REDIS_PREFIX! });
    await queues.queue('maintenance').pause();
    await queues.close();
    connection.disconnect();
    // node.check-health does not run: the enrolled node is marked online here, as the check would.
    markOnline = setInterval(() => void onlineNodes().catch(() => undefined), 1_000);
    guarded = true;
  }
  let guarded = false;
  let markOnline: NodeJS.Timeout | undefined;
  async function onlineNodes(): Promise<number> {
    const c = connectSql();
    try {
      return (await c.query(`UPDATE nodes SET status = 'online', last_seen_at = now()`)).rowCount ?? 0;
    } finally {
      await c.end();
    }
  }

  function connectSql(): Client {
    const c = new Client({ connectionString: pg.databaseUrl('slipway') });
    c.on('error', () => undefined);
    void c.connect().catch(() => undefined);
    return c;
  }

  /** A query that survives the PostgreSQL restart: on a broken connection it opens a new one. */
  async function query<T extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
    for (let i = 0; ; i++) {
      try {
        return (await sql.query<T>(text, values)).rows;
      } catch (e) {
        if (i > 50) throw e;
        await sql.end().catch(() => undefined);
        sql = connectSql();
        await sleep(200);
      }
    }
  }

  async function deploy(image: string): Promise<string> {
    const res = await retrying(() => client.post(`${appsPath}/${app.id}/deployments`, { image }));
    expect(res.status).toBe(201);
    return res.body!.id!;
  }

  /** A request answered 503 while a dependency restarts is tried again (the answer the platform promises). */
  async function retrying(call: () => Promise<{ status: number; body: { id?: string; error?: { code: string } } | null; text: string }>) {
    for (let i = 0; ; i++) {
      const res = await call().catch((e: Error) => ({ status: 0, body: null, text: e.message }));
      if (res.status !== 503 && res.status !== 0) return res;
      if (i > 100) throw new Error(`still ${res.status} after 100 tries: ${res.text}`);
      if (res.status === 503) expect(res.body?.error?.code).toMatch(/^(service_unavailable|node_unavailable)$/);
      await sleep(300);
    }
  }

  async function status(deploymentId: string): Promise<{ status: string; failureReason: string | null }> {
    const [row] = await query<{ status: string; failure_reason: string | null }>('SELECT status, failure_reason FROM deployments WHERE id = $1', [deploymentId]);
    return { status: row!.status, failureReason: row!.failure_reason };
  }

  async function finished(deploymentId: string, timeoutMs = 90_000) {
    let last = { status: '', failureReason: null as string | null };
    await waitUntil(`deployment ${deploymentId} to finish`, async () => {
      last = await status(deploymentId);
      return ['live', 'failed', 'cancelled'].includes(last.status);
    }, timeoutMs, 200).catch(async (e: unknown) => {
      // What the rows say when it did not finish: the failure names where it stopped.
      const rows = await query<{ number: number; status: string; failure_reason: string | null }>(
        'SELECT number, status, failure_reason FROM deployments WHERE app_id = (SELECT app_id FROM deployments WHERE id = $1) ORDER BY number',
        [deploymentId],
      );
      throw new Error(`${(e as Error).message}; the app's deployments: ${JSON.stringify(rows)}`);
    });
    return last;
  }

  async function serves(expected?: string, timeoutMs = 30_000): Promise<void> {
    const host = new URL(app.url).host;
    const port = haproxy?.port ?? caddy.httpPort;
    await waitUntil(`${host} to answer through the ingress${expected ? ` ${JSON.stringify(expected)}` : ''}`, async () => {
      const r = await getWithHost(`http://127.0.0.1:${port}/`, host, 3_000);
      return r.status === 200 && (!expected || r.body === expected);
    }, timeoutMs, 200);
  }

  /** Everything issue 11 asks to hold after a fault. */
  async function checkAfter(fault: string, deploymentId: string, readiness: ReadinessWatch, extra: Partial<Figure> = {}, options: { statusesBeforeNext?: boolean } = {}): Promise<void> {
    const t0 = readiness.t0;
    const end = await finished(deploymentId);
    const finishedMs = Date.now() - t0;
    // Live, or failed with a reason: never stuck.
    expect(['live', 'failed']).toContain(end.status);
    if (end.status === 'failed') expect(end.failureReason).toBeTruthy();
    await platform.ready(60_000);
    const readyMs = await readiness.stop();
    // No row in a running state.
    await waitUntil('no deployment or operation left running', async () => {
      const [d] = await query<{ n: string }>(`SELECT count(*) AS n FROM deployments WHERE status IN ('queued', 'building', 'deploying')`);
      const [o] = await query<{ n: string }>(`SELECT count(*) AS n FROM operations WHERE status IN ('queued', 'running')`);
      return Number(d!.n) === 0 && Number(o!.n) === 0;
    }, 30_000, 250);
    // The app serves, its status matches its container, and the next deployment works and serves.
    await serves();
    if (options.statusesBeforeNext !== false) await statusesMatchContainers();
    const next = await deploy(IMAGES.fast);
    expect(await finished(next, 60_000)).toMatchObject({ status: 'live' });
    await serves();
    await statusesMatchContainers();
    expect(platform.running()).toEqual(Object.fromEntries(ROLES.map((r) => [r, true])));
    figures.push({ fault, readyMs, finishedMs, outcome: end.status, ...extra });
  }

  interface ReadinessWatch {
    t0: number;
    /** Stops polling; answers when /readyz answered 200 again after its last failure (0: it never failed). */
    stop(): Promise<number>;
  }

  /** Polls /readyz every 100 ms from the fault on. */
  function watchReadiness(): ReadinessWatch {
    const t0 = Date.now();
    let lastFailure = 0;
    let backAt = 0;
    let failing = '';
    let polling = true;
    const loop = (async () => {
      while (polling) {
        const r = await platform.readyz().catch((e: Error) => ({ status: 0, body: { ok: false, checks: [{ name: 'request', ok: false, error: e.message }] } }));
        const ok = r.status === 200;
        if (!ok) {
          failing = r.body.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.error ?? ''}`.slice(0, 160)).join('; ');
          lastFailure = Date.now();
          backAt = 0;
        } else if (lastFailure && !backAt) backAt = Date.now();
        await sleep(100);
      }
    })();
    return {
      t0,
      stop: async () => {
        polling = false;
        await loop;
        if (failing && process.env.SLIPWAY_FAULTS_VERBOSE === '1') console.log(`last /readyz failure ${lastFailure - t0} ms after the fault: ${failing}`);
        return lastFailure ? (backAt || Date.now()) - t0 : 0;
      },
    };
  }

  /** The app's recorded status and current deployment match the engine: running, and its container runs. */
  async function statusesMatchContainers(): Promise<void> {
    await waitUntil('the app status to match its container', async () => {
      const [row] = await query<{ status: string; container_id: string | null }>(
        `SELECT a.status, d.container_id FROM apps a JOIN deployments d ON d.id = a.current_deployment_id WHERE a.id = $1`,
        [app.id],
      );
      if (!row?.container_id) return false;
      const running = (await docker.listContainers({ filters: { label: [`slipway.app=${app.id}`], status: ['running'] } })).map((c) => c.Id);
      return row.status === 'running' && running.includes(row.container_id);
    }, 30_000, 250);
  }

  /** Starts a slow deployment and resolves once its container is being rolled out (the middle of it). */
  async function deploymentUnderway(): Promise<string> {
    const id = await deploy(IMAGES.slow);
    await waitUntil('the deployment to reach deploying', async () => (await status(id)).status === 'deploying', 60_000, 100);
    await sleep(1_500);
    return id;
  }

  async function killDuringDeployment(role: Role): Promise<void> {
    const id = await deploymentUnderway();
    const job = role === 'worker' ? await jobWatcher(id) : null;
    const before = job ? await job.processedOn() : 0;
    const readiness = watchReadiness();
    const t0 = readiness.t0;
    const killed = platform.kill(role);
    const restartedMs = await waitUntil(`${role} to be started again`, async () => {
      const pid = platform.pid(role);
      return pid !== null && pid !== killed;
    }, 30_000, 50);
    let jobAgainMs: number | undefined;
    if (job) {
      jobAgainMs = await waitUntil('the job to run again', async () => (await job.processedOn()) > Math.max(before, t0), 60_000, 100).catch(() => undefined);
      await job.close();
      // Issue 11: a worker killed mid-job has its job running again within 30 s.
      expect(jobAgainMs).toBeLessThan(30_000);
    }
    await checkAfter(`SIGKILL ${role}`, id, readiness, { restartedMs, ...(jobAgainMs !== undefined ? { jobAgainMs } : {}) });
  }

  /** When BullMQ last started the deployment's job (its processedOn), read from the platform's Redis. */
  async function jobWatcher(deploymentId: string) {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const queues = new BullJobQueue({ connection, prefix: platform.env.SLIPWAY_REDIS_PREFIX! });
    return {
      processedOn: async () => (await queues.queue('agent').getJob(deploymentId))?.processedOn ?? 0,
      close: async () => {
        await queues.close();
        connection.disconnect();
      },
    };
  }

  it('PostgreSQL restarting mid-deployment: no process dies, requests meanwhile answer 503 service_unavailable, /readyz names the database', async () => {
    const id = await deploymentUnderway();
    const pids = ROLES.map((r) => platform.pid(r));
    const readiness = watchReadiness();
    await pg.restart({
      downMs: 2_000,
      whileDown: async () => {
        const ready = await platform.readyz();
        expect(ready.status).toBe(503);
        expect(ready.body.checks.find((c) => c.name === 'database')).toMatchObject({ ok: false });
        // The app read and its credential are answered from memory while PostgreSQL's notifications are heard; the
        // API drops that memory as it sees the connection end (decision 0041), which it had by the readiness answer.
        const during = await client.get(`${appsPath}/${app.id}`);
        expect(during).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
        expect(during.headers.get('retry-after')).toBe('5');
      },
    });
    await checkAfter('PostgreSQL restart (2 s down)', id, readiness);
    // The same processes: none died of it (the pg pool's 'error' event once ended the API).
    expect(ROLES.map((r) => platform.pid(r))).toEqual(pids);
  }, FAULT_TIMEOUT_MS);

  it('Redis restarting mid-deployment: the workers and the API reconnect by themselves; a deployment asked for meanwhile is refused with 503, not left queued', async () => {
    const id = await deploymentUnderway();
    const pids = ROLES.map((r) => platform.pid(r));
    const readiness = watchReadiness();
    await redis.restart({
      downMs: 2_000,
      whileDown: async () => {
        const refused = await client.post(`${appsPath}/${app.id}/deployments`, { image: IMAGES.fast });
        expect(refused).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
        const ready = await platform.readyz();
        expect(ready.status).toBe(503);
        expect(ready.body.checks.find((c) => c.name === 'redis')).toMatchObject({ ok: false });
      },
    });
    await checkAfter('Redis restart (2 s down)', id, readiness);
    expect(ROLES.map((r) => platform.pid(r))).toEqual(pids);
    // The refused one failed with its reason (checkAfter found no row queued).
    const [refused] = await query<{ failure_reason: string }>(`SELECT failure_reason FROM deployments WHERE app_id = $1 AND failure_reason LIKE '%could not be queued%'`, [app.id]);
    expect(refused?.failure_reason).toMatch(/job queue was not reachable/);
  }, FAULT_TIMEOUT_MS);

  it('Caddy restarting mid-deployment: the agent puts its routes back', async () => {
    const id = await deploymentUnderway();
    const pids = ROLES.map((r) => platform.pid(r));
    const readiness = watchReadiness();
    await caddy.restart();
    await checkAfter('Caddy restart', id, readiness);
    expect(ROLES.map((r) => platform.pid(r))).toEqual(pids);
  }, FAULT_TIMEOUT_MS);

  // With HAProxy in front (the default ingress): it starts again from the map file the agent rewrites after each change;
  // what lives only in its memory (the settle window's backend addresses) the agent's watchdog sets again.
  const withHaproxy = requires({ met: TEST_INGRESS_HAPROXY, reason: 'SLIPWAY_TEST_INGRESS=caddy: no HAProxy in front of Caddy' }).it;
  withHaproxy('HAProxy restarting mid-deployment: it serves from its map file, the agent puts back the rest', async () => {
    const id = await deploymentUnderway();
    const pids = ROLES.map((r) => platform.pid(r));
    const readiness = watchReadiness();
    await haproxy!.restart();
    await checkAfter('HAProxy restart', id, readiness);
    expect(ROLES.map((r) => platform.pid(r))).toEqual(pids);
  }, FAULT_TIMEOUT_MS);

  it('the API killed (SIGKILL) mid-deployment', () => killDuringDeployment('api'), FAULT_TIMEOUT_MS);
  it('the worker killed (SIGKILL) mid-deployment: its job runs again within 30 s', () => killDuringDeployment('worker'), FAULT_TIMEOUT_MS);
  it('the agent killed (SIGKILL) mid-deployment', () => killDuringDeployment('agent'), FAULT_TIMEOUT_MS);

  withDockerFault('the Docker engine restarting mid-deployment (SLIPWAY_FAULTS_DOCKER=1): the agent subscribes to its events again and app statuses follow the containers', async () => {
    const id = await deploymentUnderway();
    const readiness = watchReadiness();
    await restartDockerEngine();
    // Without reconciliation (guarded: maintenance paused) nothing corrects an app the engine's stop marked crashed
    // before the next deployment does: the statuses are then compared after it only.
    await checkAfter('Docker engine restart', id, readiness, {}, { statusesBeforeNext: !guarded });
    // /readyz showed the engine away (the agent's health is NOT_SERVING meanwhile), then came back.
    expect(figures.at(-1)!.readyMs).toBeGreaterThan(0);
    // The agent saw the engine go and come back, and sent a snapshot (the worker logs each one).
    expect(platform.log('agent')).toMatch(/subscribed to the Docker engine events again/);
    expect(platform.log('worker').match(/container snapshot from the agent/g)?.length ?? 0).toBeGreaterThan(1);
    if (guarded) console.log('note: the maintenance queue was paused (no SLIPWAY_PLATFORM_ID yet): app statuses were not reconciled by the platform');
  }, FAULT_TIMEOUT_MS);
});

const ms = (n: number) => `${(n / 1000).toFixed(1)} s`.padStart(7);

async function buildImages(docker: Docker): Promise<void> {
  for (const [key, tag] of Object.entries(IMAGES)) {
    if ((await docker.listImages({ filters: { reference: [tag] } })).length > 0) continue;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-faults-image-'));
    try {
      await writeFile(path.join(dir, 'server.js'), SERVER);
      const start = key === 'slow' ? 'CMD ["sh", "-c", "sleep 6 && exec node /app/server.js"]' : 'CMD ["node", "/app/server.js"]';
      await writeFile(path.join(dir, 'Dockerfile'), `FROM slipway/node:24\nWORKDIR /app\nENV VERSION=${key}\nCOPY server.js /app/\n${start}\n`);
      const stream = await docker.buildImage({ context: dir, src: ['Dockerfile', 'server.js'] }, { t: tag });
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => (err || out.find((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)!.error)) : resolve())),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The machine's Docker engine: `systemctl restart docker`, or SIGTERM to dockerd and a new one started as setup does. */
async function restartDockerEngine(): Promise<void> {
  if (await isSystemd()) {
    await exec('systemctl', ['restart', 'docker']);
    return;
  }
  const pid = Number((await exec('pgrep', ['-xo', 'dockerd'])).trim());
  process.kill(pid, 'SIGTERM');
  await waitUntil('dockerd to stop', async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 60_000, 100);
  const out = await import('node:fs').then((fs) => fs.openSync('/var/log/slipway/dockerd.log', 'a'));
  spawn('dockerd', [], { detached: true, stdio: ['ignore', out, out] }).unref();
  await waitUntil('the Docker engine', async () => (await exec('docker', ['info'])).length > 0, 60_000, 200);
}

const isSystemd = () => import('node:fs').then((fs) => fs.existsSync('/run/systemd/system'));

function exec(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
  });
}
