// Deploy benchmark through the whole platform (API, BullMQ workers, a real agent, Docker, Caddy):
//  1. POST deployment of a local image → first 200 with the new body through the ingress, p50 of N (default 10);
//  2. the same for rollbacks (no build: the earlier deployment's image);
//     both on a platform with the behaviour before decision 0038 (baseline: the settle window before the route) and
//     on one with the previous release kept warm, in the same run, under a request loop that counts failures;
//  2b. a bad release (exits 2 s after its start) over a good one: time until the app is back, failed requests;
//  3. requests/s through Caddy against direct requests to the container's published port, 64 connections each,
//     in the same run.
// Usage: npx tsx bench/deploy/run.ts [--runs 10] [--duration 10] [--connections 64]. See bench/deploy/README.md.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { createWorkspace, signUp } from '@slipway/testing';
import { startTestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 10);
const DURATION_S = arg('duration', 10);
const CONNECTIONS = arg('connections', 64);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (xs: number[]) => `p50 ${p50(xs).toFixed(0)} ms, min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)} (n=${xs.length})`;

type Platform = Awaited<ReturnType<typeof startTestPlatform>>;

/** An ingress request loop (every ~5 ms) that counts failures until stopped. */
function loadLoop(p: Platform, url: string) {
  let looping = true;
  let requests = 0;
  const failures: string[] = [];
  const done = (async () => {
    while (looping) {
      const r = await p.viaIngress(url).catch((e: Error) => ({ status: 0, body: e.message }));
      requests++;
      if (r.status !== 200) failures.push(`${r.status}: ${r.body.trim().slice(0, 80)}`);
      await sleep(5);
    }
  })();
  return {
    stop: async () => {
      looping = false;
      await done;
      return { requests, failures };
    },
  };
}

/**
 * On one platform: an app deployed once (warm-up), then RUNS deployments alternating v1 → v2 → v3 and RUNS rollbacks to
 * the deployment before the current one, each timed from the POST to the first 200 of its version through Caddy, under
 * a request loop that counts failed requests.
 */
async function rollouts(p: Platform) {
  const client = p.client();
  await signUp(client);
  const ws = await createWorkspace(client);
  const apps = `/v1/workspaces/${ws.id}/apps`;
  const created = await client.post(apps, { name: `bench ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 256, cpuMillis: 500 });
  if (created.status !== 201) throw new Error(`app creation answered ${created.status}: ${created.text}`);
  const app = created.body as { id: string; url: string };

  /** From the request to the first 200 through Caddy whose body is `expected`. */
  const timeTo = async (start: () => Promise<{ status: number; body: { id: string } }>, expected: string) => {
    const t0 = performance.now();
    const postedAt = Date.now();
    const res = await start();
    if (res.status !== 201) throw new Error(`answered ${res.status}`);
    for (;;) {
      const r = await p.viaIngress(app.url).catch(() => null);
      if (r?.status === 200 && r.body === expected) return { ms: performance.now() - t0, deploymentId: res.body.id, postedAt };
      if (performance.now() - t0 > 60_000) {
        const d = (await client.get(`${apps}/${app.id}/deployments/${res.body.id}`)).body as { status: string; failureReason: string | null };
        throw new Error(`no ${JSON.stringify(expected)} within 60 s: the deployment is ${d.status}${d.failureReason ? ` (${d.failureReason})` : ''}`);
      }
      await sleep(5);
    }
  };
  const versions = [p.images.v1, p.images.v2, p.images.v3];
  const body = (image: string) => `${image.split(':')[1]}\n`;

  // Warm-up: the first deployment creates the workspace network and seeds the project folder.
  // It is also a first release (decision 0038, 2026-11-28): served from its first answer, live once its window passed.
  const first = await timeTo(() => client.post(`${apps}/${app.id}/deployments`, { image: versions[0] }), body(versions[0]!));
  const firstLive = await untilLive(client, `${apps}/${app.id}/deployments/${first.deploymentId}`, first.postedAt);
  await sleep(4_000);
  const load = loadLoop(p, app.url);
  const deployMs: number[] = [];
  const deploys: Timed[] = [];
  const ids: { id: string; image: string }[] = [{ id: first.deploymentId, image: versions[0]! }];
  for (let i = 1; i <= RUNS; i++) {
    const image = versions[i % versions.length]!;
    const r = await timeTo(() => client.post(`${apps}/${app.id}/deployments`, { image }), body(image));
    deployMs.push(r.ms);
    deploys.push(r);
    ids.push({ id: r.deploymentId, image });
    await sleep(300);
  }
  const rollbackMs: number[] = [];
  const rollbacks: Timed[] = [];
  for (let i = 0; i < RUNS; i++) {
    // The two deployments before the current one: their images are among the last five kept.
    const target = ids[ids.length - 2]!;
    const r = await timeTo(() => client.post(`${apps}/${app.id}/deployments/${target.id}/rollback`), body(target.image));
    rollbackMs.push(r.ms);
    rollbacks.push(r);
    ids.push({ id: r.deploymentId, image: target.image });
    await sleep(300);
  }
  const loaded = await load.stop();
  const steps = { deploy: await breakdown(client, `${apps}/${app.id}`, deploys), rollback: await breakdown(client, `${apps}/${app.id}`, rollbacks) };
  return { client, apps, app, deployMs, rollbackMs, loaded, steps, firstRelease: { firstAnswerMs: first.ms, liveMs: firstLive } };
}

type Timed = { ms: number; deploymentId: string; postedAt: number };

/** Milliseconds from `postedAt` until the deployment at `url` is live (polled every 20 ms). */
async function untilLive(client: Awaited<ReturnType<Platform['client']>>, url: string, postedAt: number): Promise<number> {
  for (;;) {
    const d = (await client.get(url)).body as { status: string; failureReason: string | null };
    if (d.status === 'live') return Date.now() - postedAt;
    if (d.status !== 'queued' && d.status !== 'building' && d.status !== 'deploying') throw new Error(`the first release ended ${d.status}: ${d.failureReason}`);
    await sleep(20);
  }
}

/** Milestones of a rollout in its deployment log (the first line that matches), timed from the POST. */
const MILESTONES: [string, RegExp][] = [
  ['job started', /./],
  ['image tagged', / tagged slipway-app\/|is on this server$/],
  ['rollout asked', /^Starting a container/],
  ['route back to the warm release', /still running warm/],
  ['folder seeded', /^Project folder seeded/],
  ['container created', /^Container \w+ created/],
  ['first answer', / answers \(/],
  ['route moved', /^Route \S+ → the new container/],
];

/** Where the time of these rollouts went: p50 (ms from the POST) of each milestone their logs show, then the first 200. */
async function breakdown(client: Awaited<ReturnType<Platform['client']>>, appPath: string, runs: Timed[]): Promise<string> {
  const at = new Map<string, number[]>();
  for (const r of runs) {
    const lines = ((await client.get(`${appPath}/deployments/${r.deploymentId}/logs?limit=1000`)).body as { data: { text: string; at: string }[] }).data;
    for (const [name, re] of MILESTONES) {
      const line = lines.find((l) => re.test(l.text));
      if (line) at.set(name, [...(at.get(name) ?? []), Date.parse(line.at) - r.postedAt]);
    }
  }
  const parts = MILESTONES.filter(([name]) => at.has(name)).map(([name]) => `${name} ${p50(at.get(name)!).toFixed(0)}${at.get(name)!.length < runs.length ? ` (${at.get(name)!.length} of ${runs.length})` : ''}`);
  return [...parts, `first 200 ${p50(runs.map((r) => r.ms)).toFixed(0)}`].join(' → ');
}

/**
 * A bad release (answers, then exits 2 s after its start) over a good one under the request loop: the time until the
 * app's record is back on the good one, and the failed requests (must be 0).
 */
async function badRelease(p: Platform, r: Awaited<ReturnType<typeof rollouts>>) {
  await sleep(4_000);
  const before = (await r.client.get(`${r.apps}/${r.app.id}`)).body as { currentDeployment: { id: string } };
  const load = loadLoop(p, r.app.url);
  const t0 = performance.now();
  const res = await r.client.post(`${r.apps}/${r.app.id}/deployments`, { image: p.images.exit2s });
  let status = '';
  let reason = '';
  for (;;) {
    const d = (await r.client.get(`${r.apps}/${r.app.id}/deployments/${res.body.id}`)).body as { status: string; failureReason: string | null };
    const a = (await r.client.get(`${r.apps}/${r.app.id}`)).body as { currentDeployment: { id: string } };
    if (['crashed', 'failed'].includes(d.status) && a.currentDeployment.id === before.currentDeployment.id) {
      status = d.status;
      reason = d.failureReason ?? '';
      break;
    }
    if (performance.now() - t0 > 60_000) throw new Error(`the bad release did not end within 60 s (${d.status})`);
    await sleep(50);
  }
  const ms = performance.now() - t0;
  await sleep(500);
  const loaded = await load.stop();
  // Read again: the crash watch's reason may have been replaced by the revert's between the two reads above.
  reason = ((await r.client.get(`${r.apps}/${r.app.id}/deployments/${res.body.id}`)).body as { failureReason: string | null }).failureReason ?? reason;
  return { ms, status, reason, loaded };
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

async function main() {
  console.log(`${new Date().toISOString()} load average ${loadAverage()}`);
  // The migrated template database the integration tests copy from (made once, shared).
  await globalSetup();
  // Baseline, same run: the behaviour before decision 0038 (the whole settle window before the route moves).
  const base = await startTestPlatform({ name: 'bench-deploy-base', stopGraceMs: 3_000, warmPrevious: false });
  let baseline: Awaited<ReturnType<typeof rollouts>>;
  let baselineBad: Awaited<ReturnType<typeof badRelease>>;
  try {
    baseline = await rollouts(base);
    baselineBad = await badRelease(base, baseline);
  } finally {
    await base.close();
  }
  const p = await startTestPlatform({ name: 'bench-deploy', stopGraceMs: 3_000 });
  try {
    const warm = await rollouts(p);
    const bad = await badRelease(p, warm);
    const { client, apps, app } = warm;

    const live = (await client.get(`${apps}/${app.id}`)).body as { currentDeployment: { id: string } };
    const row = await p.db.deployment.findUnique({ where: { id: live.currentDeployment.id } });
    const direct = `http://127.0.0.1:${row!.hostPort}/`;
    // The agent's ingress: its own HAProxy in front of Caddy (the default, decision 0040), or Caddy's with SLIPWAY_TEST_INGRESS=caddy.
    const ingress = `http://127.0.0.1:${p.agent.ingressPort}/`;
    const host = new URL(app.url).host;
    const load = async (url: string, headers: Record<string, string>) => {
      await autocannon({ url, connections: 8, duration: 2, headers });
      const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
      return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
    };
    const viaCaddy = await load(ingress, { host });
    const toContainer = await load(direct, {});

    const failedDuring = (l: { requests: number; failures: string[] }) => `${l.requests} requests, ${l.failures.length} failed${l.failures.length ? ` (${[...new Set(l.failures)].slice(0, 3).join('; ')})` : ''}`;
    console.log(`deploy (POST → first 200 of the new version through Caddy):`);
    console.log(`  baseline (settle window first): ${fmt(baseline.deployMs)}`);
    console.log(`  warm previous (decision 0038):  ${fmt(warm.deployMs)}`);
    console.log(`  where the time goes, warm (p50 ms from the POST, deployment log): ${warm.steps.deploy}`);
    console.log(`rollback (POST → first 200 of the earlier version):`);
    console.log(`  baseline (settle window first): ${fmt(baseline.rollbackMs)}`);
    console.log(`  warm previous (decision 0038):  ${fmt(warm.rollbackMs)}`);
    console.log(`  where the time goes, warm (p50 ms from the POST, deployment log): ${warm.steps.rollback}`);
    const firsts = [baseline.firstRelease, warm.firstRelease];
    console.log(`first release of an app (POST → first 200 through the ingress; → the deployment live, i.e. what its first 200 waited for before 2026-11-28): ${firsts.map((f) => `${f.firstAnswerMs.toFixed(0)} ms; live ${f.liveMs} ms`).join(' | ')}`);
    console.log(`requests through Caddy during the deploys and rollbacks: baseline ${failedDuring(baseline.loaded)}; warm ${failedDuring(warm.loaded)}`);
    console.log(`bad release (answers, exits 2 s after its start) over a good one, until the app is back on the good one:`);
    console.log(`  baseline: ${baselineBad.ms.toFixed(0)} ms, ${baselineBad.status}: ${baselineBad.reason}; ${failedDuring(baselineBad.loaded)}`);
    console.log(`  warm:     ${bad.ms.toFixed(0)} ms, ${bad.status}: ${bad.reason}; ${failedDuring(bad.loaded)}`);
    console.log(`ingress (${p.agent.haproxy ? 'HAProxy in front of Caddy' : 'Caddy alone'}, Host ${host}): ${viaCaddy.rps.toFixed(0)} req/s, p50 ${viaCaddy.p50} ms, p99 ${viaCaddy.p99} ms, errors ${viaCaddy.errors}, non-2xx ${viaCaddy.non2xx}`);
    console.log(`direct (127.0.0.1:${row!.hostPort}):        ${toContainer.rps.toFixed(0)} req/s, p50 ${toContainer.p50} ms, p99 ${toContainer.p99} ms, errors ${toContainer.errors}, non-2xx ${toContainer.non2xx}`);
    const loadFailures = viaCaddy.errors + viaCaddy.non2xx + toContainer.errors + toContainer.non2xx;
    const rolloutFailures = warm.loaded.failures.length + bad.loaded.failures.length;
    const ratio = toContainer.rps > 0 ? viaCaddy.rps / toContainer.rps : Number.NaN;
    console.log(`ratio ingress / direct: ${ratio.toFixed(3)} (${CONNECTIONS} connections, ${DURATION_S} s each)`);
    console.log(
      `targets: deploy p50 ≤ 1000 ms ${verdict(p50(warm.deployMs) <= 1000, rolloutFailures)}; rollback p50 ≤ 1000 ms ${verdict(p50(warm.rollbackMs) <= 1000, rolloutFailures)}; ` +
        `bad release never serves a failed request ${verdict(bad.loaded.failures.length === 0 && bad.status === 'crashed', 0)}; ` +
        `ingress ≥ 0.7 × direct (issue 34) ${verdict(ratio >= 0.7, loadFailures)}`,
    );
    console.log(`${new Date().toISOString()} load average ${loadAverage()}`);
    exitOnFailures(loadFailures + rolloutFailures);
  } finally {
    await p.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
