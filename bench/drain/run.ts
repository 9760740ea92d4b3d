// Drain benchmark (issue 32) on servers of @slipway/testing/fleet: a workspace of --apps web apps (the small Node test
// server, each deployed twice so a rollback image moves too, each with a project file) is moved from fleet-1 to fleet-2
// with `slipway-admin workspaces move` while a load generator hits every app's URL through fleet-1's ingress (every
// --every ms per app). Figures: the move's duration (goal ≤ 2 min for 10 apps), each app's failed-request window (goal
// ≤ 2 s), and as a baseline from the same run the time one deployment of one app takes on the same fleet.
// Not measured: a database's write gap (moving databases is not built yet).
// Usage: npx tsx bench/drain/run.ts [--apps 10] [--every 100]
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestFleet, type FleetServer, type TestFleet } from '@slipway/testing/fleet';
import { waitFor } from '@slipway/testing/worker';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPS = arg('apps', 10);
const EVERY_MS = arg('every', 100);

const live = (client: ApiClient, path: string) => waitFor(async () => ((await client.get(path)).body.status === 'live' ? true : null), 180_000, `${path} live`);

/** Requests to one app through a server's ingress until stopped: total, failed, and the window between the first and last failure. */
function hit(server: FleetServer, url: string) {
  const f = { total: 0, failed: 0, first: 0, last: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = Date.now();
      const r = await server.viaIngress(url).catch(() => null);
      f.total++;
      if (r?.status !== 200) {
        f.failed++;
        f.first ||= at;
        f.last = at;
      }
      await new Promise((res) => setTimeout(res, EVERY_MS));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { total: f.total, failed: f.failed, windowMs: f.failed ? f.last - f.first + EVERY_MS : 0 };
  };
}

async function main() {
  await globalSetup();
  const fleet: TestFleet = await startTestFleet({ servers: [{ memoryMb: 8192, cpus: 4 }, { memoryMb: 8192, cpus: 4 }], name: 'bench-drain' });
  let failed = 0;
  try {
    const client = fleet.client();
    await signUp(client);
    const [a, b] = fleet.servers as [FleetServer, FleetServer];
    await fleet.admin('nodes', 'cordon', b.name);
    const ws = await createWorkspace(client);
    await fleet.admin('nodes', 'uncordon', b.name);
    const base = `/v1/workspaces/${ws.id}/apps`;

    // Baseline: one deployment of one app, from the request to live.
    const t0 = performance.now();
    const apps: { id: string; url: string }[] = [];
    const first = (await client.post(base, { name: `app 0 ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    await live(client, `${base}/${first.id}/deployments/${(await client.post(`${base}/${first.id}/deployments`, {})).body.id}`);
    const baselineMs = performance.now() - t0;
    apps.push({ id: first.id, url: first.url });
    for (let i = 1; i < APPS; i++) {
      const app = (await client.post(base, { name: `app ${i} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
      await live(client, `${base}/${app.id}/deployments/${(await client.post(`${base}/${app.id}/deployments`, {})).body.id}`);
      apps.push({ id: app.id, url: app.url });
    }
    for (const app of apps) {
      await live(client, `${base}/${app.id}/deployments/${(await client.post(`${base}/${app.id}/deployments`, { image: fleet.images.v2 })).body.id}`);
      await client.request('PUT', `${base}/${app.id}/files/content?path=kept.txt`, { raw: randomBytes(1 << 20).toString('hex'), headers: { 'content-type': 'application/octet-stream' } });
    }

    const stops = apps.map((app) => hit(a, app.url));
    const t1 = performance.now();
    const r = await fleet.admin('workspaces', 'move', ws.slug, '--to', b.name, '--json');
    const moveId = (JSON.parse(r.stdout) as { id: string }).id;
    const move = await waitFor(
      async () => {
        const m = await fleet.db.move.findUnique({ where: { id: moveId } });
        return m && ['succeeded', 'failed', 'cancelled'].includes(m.state) ? m : null;
      },
      600_000,
      'the move',
    );
    const moveMs = performance.now() - t1;
    await new Promise((res) => setTimeout(res, 3_000));
    const figures = await Promise.all(stops.map((s) => s()));
    if (move.state !== 'succeeded') failed++;
    const worst = Math.max(...figures.map((f) => f.windowMs));
    console.log(`\n## A workspace of ${APPS} web apps (2 releases and a 2 MB project file each) moved ${a.name} → ${b.name} under load (${EVERY_MS} ms per app through ${a.name}'s ingress)\n`);
    console.log(`| figure | value | goal |\n|---|---|---|`);
    console.log(`| baseline: one deployment of one app | ${(baselineMs / 1000).toFixed(1)} s | |`);
    console.log(`| the move (${move.state}) | ${(moveMs / 1000).toFixed(1)} s | ≤ 120 s for 10 apps |`);
    console.log(`| worst failed-request window of an app | ${worst} ms | ≤ 2000 ms |`);
    console.log(`| failed requests / requests | ${figures.reduce((n, f) => n + f.failed, 0)} / ${figures.reduce((n, f) => n + f.total, 0)} | |`);
    for (const s of move.steps as { step: string; outcome: string; sentence: string; at: string }[]) console.log(`  ${s.at} ${s.step} ${s.outcome}: ${s.sentence}`);
    console.log(`\nmove ≤ 2 min: ${verdict(moveMs <= 120_000, move.state === 'succeeded' ? 0 : 1)}; window ≤ 2 s: ${verdict(worst <= 2_000, move.state === 'succeeded' ? 0 : 1)}`);
  } finally {
    await fleet.close();
  }
  exitOnFailures(failed);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
