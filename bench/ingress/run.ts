// Ingress benchmark (issue 34 item 2): what one route change costs at 10, 500 and 5,000 routes, and whether requests
// to the other apps fail while it happens, for
//  - `config`: today's ingress (apps/agent/src/ingress/caddy.ingress.ts, CaddyIngress itself): a Caddy route per app,
//    every change through the admin API, which makes Caddy load its whole config again;
//  - `table`: the prototype of decision 0040: one catch-all route whose `reverse_proxy` takes its upstreams from a DNS
//    server the agent runs (Caddy's standard `dynamic_upstreams` `srv`, name `{http.request.host}.`, cached `refresh`);
//    a change is a write into the agent's table, Caddy's config never changes;
//  - `haproxy`: the product's ingress with HAProxy in front (decision 0040, SLIPWAY_HAPROXY_DIR): deploy/haproxy/haproxy.cfg,
//    the agent's CaddyIngress writing HAProxy's map through its runtime API (Debian's `haproxy`, or `--haproxy BINARY`).
// Its own Caddy 2.6.2 (admin and listeners on free loopback ports; the machine's shared Caddy is not touched), the
// upstreams and the table's DNS server in a child process (./double.ts). For each size and design: throughput through
// the ingress against the upstream directly (autocannon, keep-alive), then `--changes` adds, moves and removes of one
// route each, timed (the call, and until the change is seen through the ingress), while a steady load runs against
// another app (autocannon keep-alive connections and a loop of one-request connections): its failures are counted.
// Usage: npx tsx bench/ingress/run.ts [--sizes 10,500,5000] [--changes 5] [--duration 5] [--connections 32] [--refresh 1s]
//        [--designs config,table,haproxy] [--haproxy BINARY]
// Variants of the HAProxy config, measured beside it in the same run: designs `haproxy:<edit>[+<edit>…]`, the edits in
// HAPROXY_EDITS below (e.g. `--designs haproxy,haproxy:nbthread2,haproxy:reuse-always --sizes 500 --changes 1`).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { AppRoute, Logger } from '@slipway/core';
import { freePort } from '@slipway/testing/acme';
import { spawnHaProxy } from '@slipway/testing/haproxy';
import { saveJson } from '../../apps/agent/src/ingress/caddy-admin';
import { CaddyIngress, toCaddy } from '../../apps/agent/src/ingress/caddy.ingress';
import { HaproxyMap } from '../../apps/agent/src/ingress/haproxy';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const SIZES = arg('sizes', '10,500,5000').split(',').map(Number);
const CHANGES = Number(arg('changes', '5'));
const DURATION_S = Number(arg('duration', '5'));
const CONNECTIONS = Number(arg('connections', '32'));
const REFRESH = arg('refresh', '1s');
const HAPROXY = arg('haproxy', 'haproxy');
const HAPROXY_CONFIG = path.resolve(__dirname, '../../deploy/haproxy/haproxy.cfg');
const DESIGNS = arg('designs', 'config,table,haproxy').split(',');
const SPREAD = Number(arg('spread', '500'));
const TARGET_MS = 200;
const RATIO_TARGET = 0.7;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : NaN);
const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)}`;
const host = (i: number | string) => `app-${i}.apps.bench`;
const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

interface Double {
  child: ChildProcess;
  dnsPort: number;
  ports: number[];
  call(m: Record<string, unknown>): Promise<{ ms: number; queries: number }>;
}

async function startDouble(tableFile: string): Promise<Double> {
  const child = fork(path.join(__dirname, 'double.ts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_TABLE_FILE: tableFile }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (v: { ms: number; queries: number }) => void>();
  let ready: (v: { dnsPort: number; ports: number[] }) => void = () => {};
  const readyP = new Promise<{ dnsPort: number; ports: number[] }>((r) => (ready = r));
  child.on('message', (m: { id: number; ready?: boolean; dnsPort: number; ports: number[]; ms: number; queries: number }) => {
    if (m.ready) ready(m);
    else waiting.get(m.id)?.(m);
  });
  const { dnsPort, ports } = await readyP;
  let next = 1;
  return {
    child,
    dnsPort,
    ports,
    call: (m) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        child.send({ ...m, id });
      }),
  };
}

interface Caddy {
  proc: ChildProcess;
  admin: string;
  httpPort: number;
  load(config: unknown): Promise<void>;
}

async function startCaddy(dir: string): Promise<Caddy> {
  const adminPort = await freePort();
  const httpPort = await freePort();
  const admin = `http://127.0.0.1:${adminPort}`;
  const config = path.join(dir, 'caddy.json');
  writeFileSync(config, JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}`, config: { persist: false } } }));
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config') };
  const proc = spawn('caddy', ['run', '--config', config], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  for (let i = 0; ; i++) {
    const ok = await fetch(`${admin}/config/`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 100) throw new Error(`the bench's Caddy did not start: ${log}`);
    await sleep(100);
  }
  return {
    proc,
    admin,
    httpPort,
    async load(body) {
      const res = await fetch(`${admin}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`Caddy refused the config: ${await res.text()}`);
    },
  };
}

const NOT_FOUND = { handler: 'static_response', status_code: 404, headers: { 'Content-Type': ['text/plain; charset=utf-8'] }, body: 'No app is served at this address.\n' };

/** Today's ingress: deploy/caddy/bootstrap.json with one CaddyIngress route per app in front of the 404 fallback. */
function configConfig(adminPort: string, httpPort: number, routes: AppRoute[]) {
  return {
    admin: { listen: adminPort, config: { persist: false } },
    apps: { http: { servers: { ingress: { listen: [`:${httpPort}`], automatic_https: { disable: true }, routes: [...routes.map((r) => toCaddy(r)), { '@id': 'slipway-fallback', handle: [NOT_FOUND] }] } } } },
  };
}

/**
 * The prototype: one route for every host, its upstreams from the route table's SRV answer (in order; `first` takes the
 * first that is up, a passive check marks a refusing one down so the warm previous one behind it takes the request,
 * decision 0038). A host the table does not know (stopped app, no app) falls back to the static upstream: a listener of
 * this Caddy that answers 404 as today's fallback route.
 */
function tableConfig(adminPort: string, httpPort: number, notFoundPort: number, dnsPort: number) {
  const resolver = { addresses: [`udp/127.0.0.1:${dnsPort}`] };
  return {
    admin: { listen: adminPort, config: { persist: false } },
    apps: {
      http: {
        servers: {
          ingress: {
            listen: [`:${httpPort}`],
            automatic_https: { disable: true },
            routes: [
              {
                '@id': 'slipway-table',
                handle: [
                  {
                    handler: 'reverse_proxy',
                    dynamic_upstreams: { source: 'srv', name: '{http.request.host}.', refresh: REFRESH, resolver, dial_timeout: '1s' },
                    upstreams: [{ dial: `127.0.0.1:${notFoundPort}` }],
                    transport: { protocol: 'http', resolver },
                    load_balancing: { selection_policy: { policy: 'first' }, try_duration: '5s', try_interval: '10ms' },
                    health_checks: { passive: { fail_duration: '10s', max_fails: 1 } },
                  },
                ],
              },
            ],
          },
          'slipway-not-found': { listen: [`127.0.0.1:${notFoundPort}`], automatic_https: { disable: true }, routes: [{ handle: [NOT_FOUND] }] },
        },
      },
    },
  };
}

/**
 * HAProxy as the product runs it (decision 0040): deploy/haproxy/haproxy.cfg, the map file seeded with `size` routes
 * before it starts (as an agent's map file after a restart), hosts it does not hold sent to the bench's Caddy (404).
 * The change is the agent's own CaddyIngress writing HAProxy's map (`set map`/`add map`/`del map` on the runtime
 * socket, then the map file rewritten), window backends for a settle window.
 */
/** Edits of deploy/haproxy/haproxy.cfg a design `haproxy:<edit>+…` measures (throughput; open point 7 of decision 0040). */
const HAPROXY_EDITS: Record<string, (cfg: string) => string> = {
  // Worker threads (the product's: SLIPWAY_HAPROXY_THREADS, unset here: 1; HAProxy's own default: one per CPU).
  nbthread2: (cfg) => cfg.replace(/^ {2}nbthread .*$/m, '  nbthread 2'),
  nbthread4: (cfg) => cfg.replace(/^ {2}nbthread .*$/m, '  nbthread 4'),
  // Idle upstream connections shared by every client connection (default `safe`: not for a connection's first request).
  'reuse-always': (cfg) => cfg.replace(/^backend apps\n/m, 'backend apps\n  http-reuse always\n'),
  // What the forwarded headers cost (not a candidate: apps need them).
  'no-headers': (cfg) => cfg.replace(/^ {2}option forwardfor\n/gm, '').replace(/^ {2}http-request set-header X-Forwarded-.*\n/gm, ''),
  // Bigger batches per wake-up.
  'tune-batch': (cfg) => cfg.replace(/^global\n/m, 'global\n  tune.maxpollevents 600\n  tune.recv_enough 16384\n'),
};

function haproxyConfig(design: string): string {
  const edits = design.includes(':') ? design.slice(design.indexOf(':') + 1).split('+') : [];
  let cfg = readFileSync(HAPROXY_CONFIG, 'utf8');
  for (const e of edits) {
    const edit = HAPROXY_EDITS[e];
    if (!edit) throw new Error(`unknown HAProxy edit "${e}" (known: ${Object.keys(HAPROXY_EDITS).join(', ')})`);
    const next = edit(cfg);
    if (next === cfg) throw new Error(`the HAProxy edit "${e}" changed nothing in ${HAPROXY_CONFIG}`);
    cfg = next;
  }
  return cfg;
}

interface HaProxy {
  proc: ChildProcess;
  port: number;
  dir: string;
  command(line: string): Promise<string>;
}

async function startHaProxy(binary: string, dir: string, size: number, routes: AppRoute[], caddyHttpPort: number, design = 'haproxy'): Promise<HaProxy> {
  const port = await freePort();
  const hdir = path.join(dir, `haproxy-${size}-${design.replace(/[^a-z0-9-]/gi, '_')}`);
  mkdirSync(hdir, { recursive: true });
  const config = path.join(hdir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(design));
  writeFileSync(path.join(hdir, 'ingress.map'), routes.map((r) => `${r.host} ${r.upstreamPort}\n`).join(''));
  const env = { ...process.env, SLIPWAY_HAPROXY_DIR: hdir, SLIPWAY_INGRESS_HTTP_ADDRESS: '127.0.0.1', SLIPWAY_INGRESS_HTTP_PORT: String(port), SLIPWAY_CADDY_HTTP_ADDRESS: `127.0.0.1:${caddyHttpPort}` };
  const { proc, command } = await spawnHaProxy(binary, config, path.join(hdir, 'admin.sock'), env);
  return { proc, port, dir: hdir, command };
}

/** One GET through the ingress for `h`: status and body, or the error's code. */
function get(port: number, h: string, agent: http.Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { host: h }, agent, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Until a GET for `h` through the ingress satisfies `done`; ms it took (from `since`). */
async function seen(port: number, h: string, done: (r: { status: number; body: string }) => boolean, since: number): Promise<number> {
  for (;;) {
    const r = await get(port, h).catch(() => ({ status: 0, body: '' }));
    if (done(r)) return performance.now() - since;
    if (performance.now() - since > 30_000) return NaN;
    await sleep(5);
  }
}

/** autocannon through `url` with Host `h`, or cycling over the hosts `h` (each connection takes them in turn). */
async function throughput(url: string, h: string | string[]): Promise<{ rps: number; errors: number }> {
  const opts = typeof h === 'string' ? { url, connections: CONNECTIONS, headers: { host: h } } : { url, connections: CONNECTIONS, requests: h.map((x) => ({ headers: { host: x } })) };
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { rps: r.requests.average, errors: r.errors + r.timeouts + r.non2xx };
}

/** A steady load against `h` until stopped: keep-alive connections (autocannon) and one-request connections. */
function steadyLoad(port: number, h: string) {
  let stopped = false;
  let requests = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: 4 }, async () => {
    while (!stopped) {
      const r = await get(port, h).catch((e: Error) => ({ status: 0, body: e.message }));
      requests++;
      if (r.status !== 200) failures.push(`${r.status} ${r.body.trim().slice(0, 80)}`);
    }
  });
  let keepAlive: autocannon.Result | null = null;
  const inst = autocannon({ url: `http://127.0.0.1:${port}/`, connections: 8, duration: 3_600, headers: { host: h } }, (_e, r) => (keepAlive = r));
  return async () => {
    stopped = true;
    inst.stop();
    await Promise.all(loops);
    for (let i = 0; i < 100 && !keepAlive; i++) await sleep(20);
    const k = keepAlive as autocannon.Result | null;
    const kaFailed = k ? k.errors + k.timeouts + k.non2xx : NaN;
    const sample = [`${kaFailed} on keep-alive connections, ${failures.length} on one-request connections`, ...failures.slice(0, 3)];
    return { requests: requests + (k?.requests.total ?? 0), failed: failures.length + kaFailed, sample: failures.length + kaFailed ? sample : [] };
  };
}

interface Row {
  design: string;
  size: number;
  add: number[];
  move: number[];
  remove: number[];
  seenAdd: number[];
  seenMove: number[];
  seenRemove: number[];
  rps: number;
  spreadRps: number;
  direct: number;
  directSpread: number;
  settleFailed: number;
  settleNote: string;
  failed: number;
  requests: number;
  sample: string[];
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'slipway-bench-ingress-'));
  const double = await startDouble(path.join(dir, 'table.json'));
  const caddy = await startCaddy(dir);
  const adminListen = caddy.admin.replace('http://', '');
  const notFoundPort = await freePort();
  const [portA, portB] = [double.ports[0]!, double.ports[1]!];
  const rows: Row[] = [];
  let failures = 0;
  try {

    for (const size of SIZES) {
      const routes = Array.from({ length: size }, (_, i) => ({ appId: String(i), host: host(i), upstreamPort: double.ports[i % double.ports.length]! }));
      for (const design of DESIGNS) {
        const row: Row = { design, size, add: [], move: [], remove: [], seenAdd: [], seenMove: [], seenRemove: [], rps: 0, spreadRps: 0, direct: 0, directSpread: 0, settleFailed: NaN, settleNote: '', failed: 0, requests: 0, sample: [] };
        // Each design starts from its own config with `size` routes (loaded at once, not timed).
        let ingress: CaddyIngress | null = null;
        let haproxy: HaProxy | null = null;
        if (design === 'haproxy' || design.startsWith('haproxy:')) {
          // The product's path: HAProxy's map written by the agent's CaddyIngress; Caddy behind it with the 404 alone.
          await caddy.load(configConfig(adminListen, caddy.httpPort, []));
          haproxy = await startHaProxy(HAPROXY, dir, size, routes, caddy.httpPort, design);
          const file = path.join(dir, `routes-${path.basename(haproxy.dir)}.json`);
          await saveJson(file, { routes, owned: routes.map((r) => r.appId) });
          ingress = await new CaddyIngress(caddy.admin, file, silent, { haproxy: new HaproxyMap(haproxy.dir) }).load();
        } else if (design === 'config') {
          const file = path.join(dir, `routes-${size}.json`);
          await saveJson(file, { routes, owned: routes.map((r) => r.appId) });
          await caddy.load(configConfig(adminListen, caddy.httpPort, routes));
          ingress = await new CaddyIngress(caddy.admin, file, silent).load();
        } else {
          await double.call({ op: 'seed', n: size });
          await caddy.load(tableConfig(adminListen, caddy.httpPort, notFoundPort, double.dnsPort));
        }
        const ingressPort = haproxy ? haproxy.port : caddy.httpPort;
        const first = await get(ingressPort, host(0));
        if (first.status !== 200) throw new Error(`${design} at ${size}: app 0 answered ${first.status} ${first.body}`);
        // Throughput right after the same load against the upstream directly (this machine's load moves within minutes).
        const hosts = Array.from({ length: Math.min(size, SPREAD) }, (_, i) => host(i));
        const d1 = await throughput(`http://127.0.0.1:${portA}/`, host(0));
        const tp = await throughput(`http://127.0.0.1:${ingressPort}/`, host(0));
        // The same load spread over up to SPREAD hosts (Caddy's SRV cache holds 100 names).
        const d2 = await throughput(`http://127.0.0.1:${portA}/`, hosts);
        const spread = await throughput(`http://127.0.0.1:${ingressPort}/`, hosts);
        row.rps = tp.rps;
        row.direct = d1.rps;
        row.spreadRps = spread.rps;
        row.directSpread = d2.rps;
        failures += tp.errors + spread.errors + d1.errors + d2.errors;
        if (haproxy) {
          // Whether HAProxy reused its upstream connections (set-dst on a 0.0.0.0:0 server): connects against reuses.
          const stat = (await haproxy.command('show stat')).split('\n');
          const cols = stat[0]!.replace(/^# /, '').split(',');
          const f = stat.find((l) => l.startsWith('apps,BACKEND'))?.split(',') ?? [];
          row.settleNote += ` upstream connections during the loads: ${f[cols.indexOf('connect')]} opened, ${f[cols.indexOf('reuse')]} reused;`;
        }

        const stop = steadyLoad(ingressPort, host(1 % Math.max(size, 1)));
        await sleep(500);
        const put = async (appId: string, port: number) => {
          const t = performance.now();
          if (ingress) await ingress.put({ appId, host: host(appId), upstreamPort: port });
          else await double.call({ op: 'set', host: host(appId), ports: [port] });
          return t;
        };
        for (let j = 0; j < CHANGES; j++) {
          const id = `new${j}`;
          // add: a new app's route
          let t = await put(id, portA);
          row.add.push(performance.now() - t);
          row.seenAdd.push(await seen(ingressPort, host(id), (r) => r.body === `up ${portA}\n`, t));
          // move: the same app to another upstream (a rollout)
          t = await put(id, portB);
          row.move.push(performance.now() - t);
          row.seenMove.push(await seen(ingressPort, host(id), (r) => r.body === `up ${portB}\n`, t));
          // remove: the app stopped (404)
          t = performance.now();
          if (ingress) await ingress.remove(id);
          else await double.call({ op: 'delete', host: host(id) });
          row.remove.push(performance.now() - t);
          row.seenRemove.push(await seen(ingressPort, host(id), (r) => r.status === 404, t));
        }
        await sleep(500);
        const load = await stop();

        // A release inside its settle window that died (decision 0038): the route's first upstream refuses connections,
        // the warm previous one behind it must take every request.
        {
          const dead = await freePort();
          const h = host('settle');
          if (ingress) await ingress.put({ appId: 'settle', host: h, upstreamPort: dead }, portA);
          else await double.call({ op: 'set', host: h, ports: [dead, portA] });
          const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
          const answers = await Promise.all(Array.from({ length: 200 }, () => get(ingressPort, h, agent).catch((e: Error) => ({ status: 0, body: e.message }))));
          agent.destroy();
          const bad = answers.filter((a) => a.body !== `up ${portA}\n`);
          row.settleFailed = bad.length;
          if (bad.length) row.settleNote += ` (${bad.slice(0, 3).map((a) => `${a.status} ${a.body.trim().slice(0, 120)}`).join('; ')})`;
          failures += row.settleFailed;
          if (haproxy) {
            // How the window backend took them: retries and redispatches away from the dead `new` (show stat columns).
            const stat = (await haproxy.command('show stat')).split('\n');
            const cols = stat[0]!.replace(/^# /, '').split(',');
            const at = (name: string) => cols.indexOf(name);
            for (const line of stat.filter((l) => l.startsWith('w0,'))) {
              const f = line.split(',');
              row.settleNote += ` ${f[1]}: status ${f[at('status')]}, sessions ${f[at('stot')]}, connection errors ${f[at('econ')]}, retries ${f[at('wretr')]}, redispatches ${f[at('wredis')]};`;
            }
          }
          if (ingress) await ingress.remove('settle');
          else await double.call({ op: 'delete', host: h });
        }
        row.failed = load.failed;
        row.requests = load.requests;
        row.sample = load.sample;
        failures += load.failed;
        rows.push(row);
        if (haproxy) {
          haproxy.proc.kill('SIGTERM');
          await once(haproxy.proc, 'exit').catch(() => undefined);
        }
        console.log(
          `${design} @ ${size} routes: add p50 ${ms(p50(row.add))} ms (max ${ms(max(row.add))}), move p50 ${ms(p50(row.move))} (max ${ms(max(row.move))}), remove p50 ${ms(p50(row.remove))} (max ${ms(max(row.remove))}); ` +
            `seen through the ingress: added ${ms(p50(row.seenAdd))}, moved ${ms(p50(row.seenMove))}, removed ${ms(p50(row.seenRemove))} ms (p50); ${row.rps.toFixed(0)} req/s (direct ${row.direct.toFixed(0)}: ${(row.rps / row.direct).toFixed(2)}), spread over ${hosts.length} hosts ${row.spreadRps.toFixed(0)} (direct ${row.directSpread.toFixed(0)}: ${(row.spreadRps / row.directSpread).toFixed(2)}); ` +
            `steady load during the changes: ${row.failed} failed of ${row.requests}${row.sample.length ? ` (${row.sample.join('; ')})` : ''}; ` +
            `dead first upstream with a warm previous one: ${row.settleFailed} of 200 failed${row.settleNote}`,
        );
      }
    }

    console.log(`\n| design | routes | add p50 / max ms | move p50 / max ms | remove p50 / max ms | seen via ingress p50 / max ms: added, moved, removed | req/s one host (direct just before: ratio) | req/s over ≤ ${SPREAD} hosts (direct: ratio) | failed during changes | dead release, warm previous: failed of 200 |`);
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      console.log(
        `| ${r.design} | ${r.size} | ${ms(p50(r.add))} / ${ms(max(r.add))} | ${ms(p50(r.move))} / ${ms(max(r.move))} | ${ms(p50(r.remove))} / ${ms(max(r.remove))} | ${[r.seenAdd, r.seenMove, r.seenRemove].map((x) => `${ms(p50(x))} / ${ms(max(x))}`).join(', ')} | ${r.rps.toFixed(0)} (${r.direct.toFixed(0)}: ${(r.rps / r.direct).toFixed(2)}) | ${r.spreadRps.toFixed(0)} (${r.directSpread.toFixed(0)}: ${(r.spreadRps / r.directSpread).toFixed(2)}) | ${r.failed} of ${r.requests} | ${r.settleFailed} |`,
      );
    }
    for (const design of DESIGNS) {
      const mine = rows.filter((r) => r.design === design);
      const largest = mine.at(-1);
      if (!largest) continue;
      const worst = Math.max(...[...largest.add, ...largest.move, ...largest.remove]);
      const seenWorst = max([...largest.seenAdd, ...largest.seenMove, ...largest.seenRemove]);
      const failed = mine.reduce((n, r) => n + r.failed, 0);
      console.log(`${design}: one route change ≤ ${TARGET_MS} ms at ${largest.size} routes (worst call ${ms(worst)} ms, seen after ≤ ${ms(seenWorst)} ms): ${verdict(worst <= TARGET_MS, failed)}`);
      console.log(`${design}: no request to the other apps fails during changes: ${verdict(failed === 0, 0)} (${failed} failed)`);
      const ratio = Math.min(...mine.map((r) => r.rps / r.direct));
      console.log(`${design}: ingress ≥ ${RATIO_TARGET} of direct throughput (lowest ${ratio.toFixed(2)}): ${verdict(ratio >= RATIO_TARGET, failed)}`);
    }
  } finally {
    caddy.proc.kill('SIGTERM');
    double.child.kill('SIGTERM');
    await once(caddy.proc, 'exit').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  exitOnFailures(failures);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
