// App reads (issue 34, item 1): GET …/apps (a workspace of 4 apps) and GET …/apps/{id} with a session cookie, beside a
// bare Express handler answering the same JSON, in the same run and process: first C connections for D s each, then
// one client in series (the latency one user waits). The database holds --apps-total apps (default 1,000, as in the
// issue: 4 per workspace), so the reads are measured at that size. The reads touch PostgreSQL only: each app's folder usage is the
// figure the metrics pipeline wrote on its row (set here as metrics.collect would). No agent runs at all: before issue
// 34 each read asked it. Usage: npx tsx bench/reads/run.ts [--duration 10] [--connections 16] [--serial-duration 5]
// [--apps-total 1000].
// Needs PostgreSQL and Redis (the integration tests' services). See bench/reads/README.md.
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
const DURATION_S = arg('duration', 10);
const CONNECTIONS = arg('connections', 16);
const SERIAL_DURATION_S = arg('serial-duration', 5);
const APPS_TOTAL = Math.max(4, arg('apps-total', 1000));

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

async function load(name: string, url: string, headers: Record<string, string>, connections: number, duration: number): Promise<Figures> {
  const r = await autocannon({ url, connections, duration, headers, workers: 1 });
  return { name, requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.errors + r.timeouts + r.non2xx };
}

async function main() {
  await withScratchApi(async ({ base, uncachedBase, sql, listen }) => {
    const client = new ApiClient(base, { origin: BENCH_ORIGIN });
    await signUp(client);
    const workspace = await createWorkspace(client, 'Bench');
    const appsPath = `/v1/workspaces/${workspace.id}/apps`;
    for (let i = 0; i < 4; i++) {
      const res = await client.post(appsPath, { name: `app ${i}`, kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
      if (res.status !== 201) throw new Error(`creating an app answered ${res.status}`);
    }
    // Room on the one server row for them all (placement counts what workspaces reserve).
    await sql.query(`UPDATE nodes SET cpu_millis = 10000000, memory_mb = 100000000`);
    // The rest of the server's apps, 4 to a workspace (other users' in the issue; one user's here: the reads are scoped
    // by workspace either way).
    const others = Array.from({ length: Math.ceil((APPS_TOTAL - 4) / 4) }, (_, i) => i);
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < others.length) {
          const w = others[next++]!;
          const ws = await createWorkspace(client, `Filler ${w}`);
          for (let i = 0; i < Math.min(4, APPS_TOTAL - 4 - w * 4); i++) {
            const res = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `app ${i}`, kind: 'web', source: 'image', image: 'nginx:1', memoryMb: 128 });
            if (res.status !== 201) throw new Error(`creating a filler app answered ${res.status}: ${JSON.stringify(res.body)}`);
          }
        }
      }),
    );
    // As metrics.collect leaves them: a folder figure and its minute on each row.
    await sql.query(`UPDATE apps SET folder_used_mb = 37, folder_measured_at = date_trunc('minute', now())`);
    const count = (await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM apps`)).rows[0]!.n;
    console.log(`${count} apps in the database`);
    const cookie = `svc_session=${client.cookie('svc_session')}`;
    const list = await fetch(`${base}${appsPath}`, { headers: { cookie } });
    const listBody = (await list.json()) as { data: { id: string; disk: unknown }[] };
    if (list.status !== 200 || listBody.data.length !== 4) throw new Error(`the list answers ${list.status}`);
    const one = listBody.data[0]!;
    console.log(`one app's disk as read: ${JSON.stringify(one.disk)}`);

    const bareApp = express();
    bareApp.disable('x-powered-by');
    bareApp.get('/list', (_req, res) => void res.json(listBody));
    bareApp.get('/one', (_req, res) => void res.json(one));
    const bare = await listen(bareApp);

    console.log(`node ${process.version}, ${cpus().length} cores; ${CONNECTIONS} connections for ${DURATION_S} s, then 1 client in series for ${SERIAL_DURATION_S} s\n`);
    await autocannon({ url: `${base}${appsPath}`, connections: 4, duration: 2, headers: { cookie } });
    await autocannon({ url: `${uncachedBase}${appsPath}`, connections: 4, duration: 2, headers: { cookie } });
    // Three in each phase, in turn: the API as served (reads from memory), the same API reading PostgreSQL every time
    // (before decision 0041), and the bare handler.
    const rows: { api: Figures; before: Figures; bare: Figures }[] = [];
    for (const [connections, duration, label] of [
      [CONNECTIONS, DURATION_S, `${CONNECTIONS} connections`],
      [1, SERIAL_DURATION_S, '1 client in series'],
    ] as const) {
      for (const [what, path, barePath] of [
        ['GET …/apps (4 apps)', appsPath, '/list'],
        ['GET …/apps/{id}', `${appsPath}/${one.id}`, '/one'],
      ] as const) {
        rows.push({
          api: await load(`${what}, ${label}`, `${base}${path}`, { cookie }, connections, duration),
          before: await load(`  same, every read from PostgreSQL`, `${uncachedBase}${path}`, { cookie }, connections, duration),
          bare: await load(`  bare handler, same JSON`, `${bare}${barePath}`, {}, connections, duration),
        });
      }
    }
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(`${pad('path', 48)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}failed`);
    for (const r of rows.flatMap((x) => [x.api, x.before, x.bare])) console.log(`${pad(r.name, 48)}${pad(r.requestsPerSecond.toFixed(0), 10)}${pad(String(r.p50), 9)}${pad(String(r.p99), 9)}${r.failed}`);
    const failed = rows.reduce((n, x) => n + x.api.failed + x.before.failed + x.bare.failed, 0);
    console.log('');
    for (const { api: a, before: o, bare: b } of rows) {
      const ratio = a.requestsPerSecond / b.requestsPerSecond;
      console.log(`${pad(a.name, 48)} ratio to bare ${ratio.toFixed(2)} of req/s (from PostgreSQL every time: ${(o.requestsPerSecond / b.requestsPerSecond).toFixed(2)}); p50 ${a.p50} ms (bare ${b.p50} ms)`);
      console.log(`  target (p50 ≤ 10 ms and ≥ 0.6 × the bare handler's req/s): ${verdict(a.p50 <= 10 && ratio >= 0.6, a.failed + b.failed)}`);
    }
    exitOnFailures(failed);
  });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
