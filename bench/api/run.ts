// Benchmark of the authenticated hot path: GET /v1/workspaces/{id} with a session cookie, at 64 connections
// for 20 s, against a bare Express handler in the same run; then one client in series (1 connection, the latency a
// single user sees; it replaced a test that bounded 50 requests by 5 s, issue 35). Usage: npx tsx bench/api/run.ts
// [--duration 20] [--connections 64] [--serial-duration 5]. Needs PostgreSQL and Redis (the integration tests'
// services). See bench/api/README.md.
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import express from 'express';
import { ApiClient, createWorkspace, signUp } from '@slipway/testing';
import { BENCH_ORIGIN, withScratchApi } from '../lib/scratch-api';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DURATION_S = arg('duration', 20);
const CONNECTIONS = arg('connections', 64);
const SERIAL_DURATION_S = arg('serial-duration', 5);
/** `--only api`: skip the bare handler (for profiling the API alone). */
const ONLY_API = process.argv.includes('--only') && process.argv[process.argv.indexOf('--only') + 1] === 'api';

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  total: number;
}

async function load(name: string, url: string, headers: Record<string, string>, connections = CONNECTIONS, duration = DURATION_S): Promise<Figures> {
  // The load generator runs in a worker thread so that it does not share the API's event loop.
  const result = await autocannon({ url, connections, duration, headers, workers: 1 });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

async function main() {
  await withScratchApi(async ({ base, uncachedBase, listen }) => {
    const client = new ApiClient(base, { origin: BENCH_ORIGIN });
    await signUp(client);
    const workspace = await createWorkspace(client, 'Bench');
    const path = `/v1/workspaces/${workspace.id}`;
    const cookie = `svc_session=${client.cookie('svc_session')}`;
    const check = await fetch(`${base}${path}`, { headers: { cookie } });
    if (check.status !== 200) throw new Error(`the benchmark path answers ${check.status}`);

    const bareApp = express();
    bareApp.disable('x-powered-by');
    bareApp.get('/bare', (_req, res) => {
      res.json(workspace);
    });
    const bare = { base: await listen(bareApp) };

    console.log(`node ${process.version}, ${cpus().length} cores, ${CONNECTIONS} connections, ${DURATION_S} s each\n`);
    // A short warm-up so both runs start with compiled code and open pools.
    await autocannon({ url: `${base}${path}`, connections: 8, duration: 2, headers: { cookie } });
    await autocannon({ url: `${uncachedBase}${path}`, connections: 8, duration: 2, headers: { cookie } });
    const authed = await load(`GET ${'/v1/workspaces/{id}'} (session cookie)`, `${base}${path}`, { cookie });
    const uncached = ONLY_API ? authed : await load('  same, credential read from PostgreSQL every time', `${uncachedBase}${path}`, { cookie });
    const baseline = ONLY_API ? authed : await load('bare Express handler', `${bare.base}/bare`, {});

    // One client, one request at a time: what a single user waits for each answer.
    const serial = await load(`GET ${'/v1/workspaces/{id}'}, 1 client in series`, `${base}${path}`, { cookie }, 1, SERIAL_DURATION_S);
    const serialBare = ONLY_API ? serial : await load('bare Express handler, 1 client in series', `${bare.base}/bare`, {}, 1, SERIAL_DURATION_S);

    const rows = [authed, uncached, baseline, serial, serialBare];
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(`${pad('path', 50)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('requests', 10)}errors/non-2xx`);
    for (const r of rows) {
      console.log(
        `${pad(r.name, 50)}${pad(r.requestsPerSecond.toFixed(0), 10)}${pad(String(r.p50), 9)}${pad(String(r.p99), 9)}${pad(String(r.total), 10)}${r.errors}/${r.non2xx}`,
      );
    }
    console.log(`\nratio authenticated / bare: ${(authed.requestsPerSecond / baseline.requestsPerSecond).toFixed(3)} of the requests/s (reading PostgreSQL every time: ${(uncached.requestsPerSecond / baseline.requestsPerSecond).toFixed(3)})`);
    console.log(
      `one client in series: ${serial.requestsPerSecond.toFixed(0)} req/s, mean ${serial.mean.toFixed(2)} ms, p99 ${serial.p99} ms` +
        ` (bare: mean ${serialBare.mean.toFixed(2)} ms, p99 ${serialBare.p99} ms); 50 requests in a row take ~${((50 * 1000) / serial.requestsPerSecond).toFixed(0)} ms`,
    );
    const failed = rows.reduce((n, r) => n + r.errors + r.non2xx, 0);
    console.log(`target (>= 1500 req/s, p99 < 25 ms): ${verdict(authed.requestsPerSecond >= 1500 && authed.p99 < 25, failed)}`);
    console.log(`target, issue 34 (>= 0.5 of the bare handler's req/s, p99 <= 25 ms): ${verdict(!ONLY_API && authed.requestsPerSecond >= 0.5 * baseline.requestsPerSecond && authed.p99 <= 25, failed)}`);
    exitOnFailures(failed);
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
