// Fleet benchmark (issue 31) on servers of @slipway/testing/fleet (network namespaces, an engine, a Caddy and an
// agent each, joined with one-time tokens):
//  1. requests per second to an app on server B through server A's ingress (A's Caddy → TLS → B's mesh listener →
//     the app) against B's own ingress, in the same run, alternated --rounds times and compared by medians (goal:
//     remote ≥ 0.8 × own);
//  2. the time from join to the first app served on a new server: a third server joins (server-up, one-time token,
//     `slipway-agent join`, `run`, online), then a workspace placed there deploys an app until its URL answers 200
//     through that server's ingress (images already loaded, as a prepared server has them).
// Usage: npx tsx bench/fleet/run.ts [--rounds 3] [--duration 5] [--connections 32]
import autocannon from 'autocannon';
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
const ROUNDS = arg('rounds', 3);
const DURATION_S = arg('duration', 5);
const CONNECTIONS = arg('connections', 32);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

async function load(server: FleetServer, host: string): Promise<Load> {
  const opts = { url: `http://${server.address}/`, headers: { host }, connections: CONNECTIONS };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.errors + r.timeouts + r.non2xx };
}

async function deployOn(fleet: TestFleet, client: ApiClient, server: FleetServer): Promise<{ url: string; host: string }> {
  // Every other server cordoned while the workspace is placed (what `slipway-admin cordon` writes): it lands on `server`.
  const others = fleet.servers.filter((s) => s !== server).map((s) => s.nodeId);
  await fleet.db.node.updateMany({ where: { id: { in: others } }, data: { cordonedAt: new Date() } });
  const ws = await createWorkspace(client);
  await fleet.db.node.updateMany({ where: { id: { in: others } }, data: { cordonedAt: null } });
  const base = `/v1/workspaces/${ws.id}/apps`;
  const app = (await client.post(base, { name: `bench ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 256 })).body;
  const d = (await client.post(`${base}/${app.id}/deployments`, {})).body;
  await waitFor(async () => ((await client.get(`${base}/${app.id}/deployments/${d.id}`)).body.status === 'live' ? true : null), 120_000, 'the deployment');
  const host = new URL(app.url).host;
  await waitFor(async () => ((await server.viaIngress(app.url).catch(() => null))?.status === 200 ? true : null), 30_000, 'the app through its server');
  return { url: app.url, host };
}

async function main() {
  await globalSetup();
  const fleet = await startTestFleet({ servers: 2, name: 'bench-fleet' });
  let failed = 0;
  try {
    const client = fleet.client();
    await signUp(client);
    const [a, b] = fleet.servers as [FleetServer, FleetServer];

    // 1. through a remote server's ingress against the owner's own.
    const app = await deployOn(fleet, client, b);
    await fleet.worker.services.routing.syncAllRoutes();
    await waitFor(async () => ((await a.viaIngress(app.url).catch(() => null))?.status === 200 ? true : null), 30_000, 'the app through A');
    const own: Load[] = [];
    const remote: Load[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      own.push(await load(b, app.host));
      remote.push(await load(a, app.host));
    }
    failed += [...own, ...remote].reduce((n, l) => n + l.failed, 0);
    const ratio = median(remote.map((l) => l.rps)) / median(own.map((l) => l.rps));
    const row = (name: string, ls: Load[]) =>
      `| ${name} | ${median(ls.map((l) => l.rps)).toFixed(0)} | ${median(ls.map((l) => l.p50)).toFixed(1)} | ${median(ls.map((l) => l.p99)).toFixed(1)} | ${ls.map((l) => l.rps.toFixed(0)).join(', ')} |`;
    console.log(`\n## 1. An app on ${b.name}: its own ingress against ${a.name}'s (${CONNECTIONS} connections, ${DURATION_S} s, ${ROUNDS} rounds, medians)\n`);
    console.log('| path | req/s | p50 ms | p99 ms | req/s of each round |');
    console.log('|---|---|---|---|---|');
    console.log(row(`${b.name}'s own ingress → app`, own));
    console.log(row(`${a.name}'s ingress → TLS → ${b.name}'s mesh listener → app`, remote));
    console.log(`\nremote / own = ${ratio.toFixed(2)} (goal ≥ 0.8): ${verdict(ratio >= 0.8, failed)}`);

    // 2. join → first app served on a new server.
    const t0 = performance.now();
    const c = await fleet.addServer();
    const joined = performance.now() - t0;
    const t1 = performance.now();
    await deployOn(fleet, client, c);
    const served = performance.now() - t1;
    console.log(`\n## 2. A new server: join → online ${(joined / 1000).toFixed(1)} s; → first app served through it ${((joined + served) / 1000).toFixed(1)} s (workspace, app, deployment: ${(served / 1000).toFixed(1)} s)\n`);
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
