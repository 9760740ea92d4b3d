// Density benchmark through the whole platform (API, BullMQ workers, a real agent, Docker, Caddy): N tiny web apps
// over M workspaces on one host, C deployments at a time, then: live and serving counts, create→live p50 of the
// first and the last 10 %, host memory and platform RSS per app, list latency at that size, one reconcile pass, and
// the time to delete them all (no container, no network left).
// Usage: npx tsx bench/density/run.ts [--apps 300] [--workspaces 100] [--concurrency 8]. See bench/density/README.md.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import { LABELS } from '../../packages/core/src';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { engineFloor, type EngineFloor } from '../lib/engine-floor';
import { ensureTinyImage, pool, TINY_IMAGE } from '../lib/tiny-image';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPS = arg('apps', 300);
const WORKSPACES = arg('workspaces', 100);
const CONCURRENCY = arg('concurrency', 8);
/** 0: no engine-alone baseline after the platform's run (it takes about as long as the platform's teardown). */
const ENGINE_FLOOR = arg('engine-floor', 1) !== 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]! : Number.NaN);
const mb = (bytes: number) => bytes / 1024 / 1024;

/** Resident memory (bytes) of every process whose command name is `comm`. */
async function rssOf(comm: string): Promise<number> {
  let total = 0;
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    try {
      if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() !== comm) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
      total += m ? Number(m[1]) * 1024 : 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU seconds (user + system) used so far by every process whose command name is `comm`. */
async function cpuSecondsOf(comm: string): Promise<number> {
  let ticks = 0;
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    try {
      if ((await readFile(`/proc/${pid}/comm`, 'utf8')).trim() !== comm) continue;
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

async function hostUsed(): Promise<number> {
  const info = await readFile('/proc/meminfo', 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(info)?.[1] ?? 0) * 1024;
  return kb('MemTotal') - kb('MemAvailable');
}

async function memory() {
  global.gc?.();
  return { host: await hostUsed(), platform: process.memoryUsage().rss, caddy: await rssOf('caddy'), dockerd: await rssOf('dockerd') };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function main() {
  await globalSetup();
  const p: TestPlatform = await startTestPlatform({ name: 'bench-density', readyTimeoutMs: 60_000, stopGraceMs: 2_000 });
  let closed = false;
  const close = async () => {
    if (!closed) await p.close();
    closed = true;
  };
  let failures = 0;
  try {
    await ensureTinyImage(p.docker);
    const client: ApiClient = p.client();
    await signUp(client);
    // The platform warmed (one workspace, one app, deleted) before the baseline, so start-up costs are not counted.
    const warm = await createWorkspace(client);
    const warmApp = await client.post(`/v1/workspaces/${warm.id}/apps`, { name: 'warm', kind: 'web', source: 'image', image: TINY_IMAGE, memoryMb: 128, port: 8080 });
    await client.post(`/v1/workspaces/${warm.id}/apps/${warmApp.body.id}/deployments`, {});
    await sleep(3_000);
    await client.delete(`/v1/workspaces/${warm.id}`);
    await sleep(3_000);
    const before = await memory();

    const workspaces = await pool(Array.from({ length: WORKSPACES }, (_, i) => i), CONCURRENCY, async (i) => createWorkspace(client, `density ${i} ${randomBytes(2).toString('hex')}`));
    const plan = Array.from({ length: APPS }, (_, i) => ({ i, ws: workspaces[i % WORKSPACES]! }));
    const t0 = performance.now();
    const results = await pool(plan, CONCURRENCY, async ({ i, ws }) => {
      const started = performance.now();
      const apps = `/v1/workspaces/${ws.id}/apps`;
      const created = await client.post(apps, { name: `tiny ${i}`, kind: 'web', source: 'image', image: TINY_IMAGE, memoryMb: 128, cpuMillis: 100, port: 8080 });
      if (created.status !== 201) return { i, ok: false, ms: 0, url: '', why: `create ${created.status} ${created.text.slice(0, 200)}` };
      const d = await client.post(`${apps}/${created.body.id}/deployments`, {});
      if (d.status !== 201) return { i, ok: false, ms: 0, url: '', why: `deploy ${d.status} ${d.text.slice(0, 200)}` };
      // A first release serves from its first answer, before its window has passed and it is live (decision 0038,
      // 2026-11-28): the first `tiny` through the ingress is timed too.
      let answeredMs = Number.NaN;
      for (;;) {
        const got = (await client.get(`${apps}/${created.body.id}/deployments/${d.body.id}`)).body as { status: string; failureReason: string | null };
        if (got.status === 'live') return { i, ok: true, ms: performance.now() - started, answeredMs, url: created.body.url as string, why: '' };
        if (got.status === 'failed' || got.status === 'cancelled') return { i, ok: false, ms: 0, url: '', why: `${got.status}: ${got.failureReason}` };
        if (got.status === 'deploying' && Number.isNaN(answeredMs) && (await p.viaIngress(created.body.url).catch(() => null))?.body === 'tiny\n') answeredMs = performance.now() - started;
        if (performance.now() - started > 180_000) return { i, ok: false, ms: 0, url: '', why: 'not live within 180 s' };
        await sleep(100);
      }
    });
    const deployAllS = (performance.now() - t0) / 1000;
    const live = results.filter((r) => r.ok);
    for (const r of results.filter((x) => !x.ok).slice(0, 5)) console.log(`  app ${r.i}: ${r.why}`);
    // Each live app asked once through the ingress; what did not answer `tiny` is asked again 5 s later, so a miss that
    // lasts (no route, no container) is told apart from a slow answer, and each reason is counted.
    const ask = (r: (typeof live)[number]) =>
      p.viaIngress(r.url).then(
        (res) => (res.body === 'tiny\n' ? '' : `answered ${res.status}`),
        (e: Error) => e.message.replace(/http:\/\/\S+/, 'the ingress'),
      );
    const firstAsk = await pool(live, 16, ask);
    const missed = live.filter((_, k) => firstAsk[k] !== '');
    await sleep(missed.length ? 5_000 : 0);
    const secondAsk = await pool(missed, 16, ask);
    const servingCount = live.length - secondAsk.filter((why) => why !== '').length;
    const reasons = new Map<string, number>();
    for (const why of [...firstAsk, ...secondAsk.map((w) => (w ? `still, 5 s later: ${w}` : 'answered 5 s later'))].filter(Boolean)) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    failures += APPS - live.length + (live.length - servingCount);

    const tenth = Math.max(1, Math.floor(APPS / 10));
    const firstP50 = p50(results.slice(0, tenth).filter((r) => r.ok).map((r) => r.ms));
    const lastP50 = p50(results.slice(-tenth).filter((r) => r.ok).map((r) => r.ms));
    const answeredP50 = (rs: typeof results) => p50(rs.map((r) => r.answeredMs ?? Number.NaN).filter((ms) => !Number.isNaN(ms)));
    const firstAnswerP50 = answeredP50(results.slice(0, tenth));
    const lastAnswerP50 = answeredP50(results.slice(-tenth));

    await sleep(5_000); // containers settle (busybox is up at once; the platform's caches are what is measured)
    const after = await memory();
    const perApp = (k: keyof typeof before) => mb(after[k] - before[k]) / Math.max(1, live.length);

    // List latency at that size: the user's workspaces, one workspace's apps, one app's deployments.
    const listMs = async (url: string) => {
      const xs: number[] = [];
      for (let k = 0; k < 20; k++) {
        const r = await timed(() => client.get(url));
        if (r.value.status !== 200) failures++;
        xs.push(r.ms);
      }
      return p50(xs);
    };
    const someWs = workspaces[0]!.id;
    const someApp = (await client.get(`/v1/workspaces/${someWs}/apps`)).body.data[0]?.id as string;
    const listWorkspaces = await listMs('/v1/workspaces');
    const listApps = await listMs(`/v1/workspaces/${someWs}/apps`);
    const listDeployments = await listMs(`/v1/workspaces/${someWs}/apps/${someApp}/deployments`);

    const reconcile = await timed(() => p.worker.services.reconcile.run(`density-${Date.now()}`));

    const mine = { label: [`${LABELS.platform}=${p.agent.agent.platformId}`] };
    const networksBefore = (await p.docker.listNetworks({ filters: mine })).length;
    const t0Delete = performance.now();
    const del = await timed(async () => {
      await pool(workspaces, CONCURRENCY, async (ws) => {
        const r = await client.delete(`/v1/workspaces/${ws.id}`);
        if (r.status !== 200) failures++;
      });
      // Waited for up to twice the target, so a miss still says how far it was.
      const end = performance.now() + 120_000;
      // Every 10 s: what is left, and where the CPU went (this process holds the API, the workers and the agent; the
      // engine is dockerd), so a slow teardown says whether the platform or the engine bounds it.
      let mark = { at: performance.now(), cpu: process.cpuUsage(), dockerd: await cpuSecondsOf('dockerd') };
      for (;;) {
        const c = (await p.docker.listContainers({ all: true, filters: mine })).length;
        const n = (await p.docker.listNetworks({ filters: mine })).length;
        if ((c === 0 && n === 0) || performance.now() > end) return { containers: c, networks: n };
        if (performance.now() - mark.at >= 10_000) {
          const now = { at: performance.now(), cpu: process.cpuUsage(), dockerd: await cpuSecondsOf('dockerd') };
          const s = (now.at - mark.at) / 1000;
          const platformCpu = (now.cpu.user + now.cpu.system - mark.cpu.user - mark.cpu.system) / 1e6 / s;
          console.log(`  teardown at ${((now.at - t0Delete) / 1000).toFixed(0)} s: ${c} containers, ${n} networks left; CPU platform ${(platformCpu * 100).toFixed(0)} %, dockerd ${(((now.dockerd - mark.dockerd) / s) * 100).toFixed(0)} %; load ${os.loadavg()[0]!.toFixed(1)}`);
          mark = now;
        }
        await sleep(1_000); // each look lists every container: at 1,000 it is engine work of its own
      }
    });
    const left = del.value;
    // How the teardowns went (their Operation rows): a slow or failed delete shows here.
    const teardowns = await p.db.operation.findMany({ where: { kind: 'workspace.teardown', workspaceId: { in: workspaces.map((w) => w.id) } } });
    const took = teardowns.filter((o) => o.finishedAt).map((o) => o.finishedAt!.getTime() - o.createdAt.getTime());
    const byStatus = teardowns.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.status]: (acc[o.status] ?? 0) + 1 }), {});
    const errors = [...new Set(teardowns.map((o) => o.error).filter(Boolean))].slice(0, 3);

    // The engine alone, with nothing of the platform running (it is closed first: a teardown still under way would
    // share the engine), for the same number of containers and networks: what no platform can go under here.
    await close();
    const floor: EngineFloor | null = ENGINE_FLOOR ? await engineFloor(p.docker, { image: TINY_IMAGE, port: 8080, apps: APPS, workspaces: WORKSPACES, concurrency: CONCURRENCY, publish: true }) : null;
    const floorS = floor ? floor.removeAllMs / 1000 : Number.NaN;

    const docker = execFileSync('docker', ['version', '--format', '{{.Server.Version}}']).toString().trim();
    console.log(`density: ${APPS} apps over ${WORKSPACES} workspaces, ${CONCURRENCY} at a time (Docker ${docker}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB)`);
    console.log(`live ${live.length}/${APPS}, serving ${servingCount}/${APPS} (all deployed in ${deployAllS.toFixed(0)} s; ${networksBefore} workspace networks)`);
    for (const [why, n] of reasons) console.log(`  not serving at the first ask or after: ${n} × ${why}`);
    console.log(`create→live p50: first 10 % ${firstP50.toFixed(0)} ms, last 10 % ${lastP50.toFixed(0)} ms (ratio ${(lastP50 / firstP50).toFixed(2)})`);
    console.log(`create→first answer through the ingress (while deploying) p50: first 10 % ${firstAnswerP50.toFixed(0)} ms, last 10 % ${lastAnswerP50.toFixed(0)} ms (ratio ${(lastAnswerP50 / firstAnswerP50).toFixed(2)})`);
    console.log(
      `memory per app: host ${perApp('host').toFixed(2)} MB; platform (API + worker + agent, one process here) ${perApp('platform').toFixed(3)} MB, ` +
        `Caddy ${perApp('caddy').toFixed(3)} MB, dockerd ${perApp('dockerd').toFixed(3)} MB`,
    );
    console.log(`  totals before → after: platform ${mb(before.platform).toFixed(0)} → ${mb(after.platform).toFixed(0)} MB, Caddy ${mb(before.caddy).toFixed(0)} → ${mb(after.caddy).toFixed(0)} MB, dockerd ${mb(before.dockerd).toFixed(0)} → ${mb(after.dockerd).toFixed(0)} MB, host ${mb(before.host).toFixed(0)} → ${mb(after.host).toFixed(0)} MB`);
    console.log(`list p50 at that size: workspaces (${WORKSPACES}) ${listWorkspaces.toFixed(1)} ms, apps of one workspace ${listApps.toFixed(1)} ms, deployments of one app ${listDeployments.toFixed(1)} ms`);
    console.log(`reconcile pass: ${reconcile.ms.toFixed(0)} ms (${reconcile.value.nodesCompared.length} node, ${reconcile.value.orphansRemoved.length} orphans)`);
    console.log(`delete all ${WORKSPACES} workspaces → no container, no network: ${(del.ms / 1000).toFixed(1)} s (left: ${left.containers} containers, ${left.networks} networks)`);
    console.log(
      `  teardowns: ${JSON.stringify(byStatus)}, tries ${teardowns.reduce((n, o) => n + o.attempts, 0)}, queued → done p50 ${p50(took).toFixed(0)} ms, max ${Math.max(0, ...took).toFixed(0)} ms${errors.length ? `; errors: ${errors.join(' | ')}` : ''}`,
    );
    if (floor) {
      console.log(
        `engine alone, same ${APPS} containers over ${WORKSPACES} networks (the agent's create options, no platform, no project folders, ${CONCURRENCY} at a time): ` +
          `create first / last 10 % ${(floor.createFirstTenthMs / 1000).toFixed(1)} / ${(floor.createLastTenthMs / 1000).toFixed(1)} s (ratio ${(floor.createLastTenthMs / floor.createFirstTenthMs).toFixed(2)}); ` +
          `removed workspace by workspace (its containers, then its network): every container gone in ${(floor.removeContainersMs / 1000).toFixed(1)} s, everything in ${floorS.toFixed(1)} s${floor.failed ? ` (${floor.failed} engine calls failed)` : ''}`,
      );
      failures += floor.failed;
    }
    const gone = left.containers === 0 && left.networks === 0;
    console.log(
      `targets: ${APPS}/${APPS} live and serving ${verdict(servingCount === APPS, APPS - live.length)}; ` +
        `last-10 % p50 ≤ 1.5 × first-10 % p50 ${verdict(lastP50 <= 1.5 * firstP50, APPS - live.length)}; ` +
        `platform ≤ 0.5 MB per app ${verdict(perApp('platform') <= 0.5, APPS - live.length)}; ` +
        `reconcile ≤ 2 s ${verdict(reconcile.ms <= 2000, 0)}; ` +
        `all gone within 60 s ${verdict(gone && del.ms <= 60_000, gone ? 0 : left.containers + left.networks)}` +
        (floor ? ` (the engine alone: ${floorS.toFixed(1)} s${floorS > 60 ? ', over the target before any platform work' : ''})` : ''),
    );
    exitOnFailures(failures);
  } finally {
    await close();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
