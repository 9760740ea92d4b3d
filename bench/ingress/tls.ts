// Custom domains with the route table (decision 0040): automatic HTTPS with no per-domain Caddy config, checked on
// this machine's Caddy 2.6.2 against Pebble (a real ACME CA) and dnsmasq (@slipway/testing/acme). Its own Caddy:
// an HTTP server on Pebble's validation port and an HTTPS server, both with the one catch-all route of ./run.ts
// (upstreams from the route table's SRV answers), and one TLS policy `on_demand` whose `ask` endpoint answers 200 only
// for a hostname the table routes. Allowing a domain is a table write; this prints the time from it to the first HTTPS
// 200 (issuance at the first handshake included), and checks that a hostname the table does not route gets no
// certificate (the handshake fails: no order reaches the CA).
// With `--haproxy BINARY`, the same for HAProxy in front (decision 0040's choice): HAProxy owns the HTTP port (the
// host → port map, ACME challenges forwarded to Caddy's internal HTTP listener) and answers Caddy's `ask` from the same
// map on an internal frontend, through which Caddy's HTTPS catch-all route also proxies; allowing a domain is one
// `add map` on HAProxy's runtime API.
// Usage: npx tsx bench/ingress/tls.ts [--runs 3] [--haproxy BINARY]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { freePort, startTestAcme } from '@slipway/testing/acme';
import { spawnHaProxy, type HaProxyProcess } from '@slipway/testing/haproxy';
import { RouteDns } from './route-dns';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 3);
const HAPROXY = process.argv.includes('--haproxy') ? process.argv[process.argv.indexOf('--haproxy') + 1]! : '';
const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)])) : v;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function httpsGet(port: number, hostname: string, ca: string): Promise<{ status: number; body: string; issuer: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, servername: hostname, headers: { host: hostname }, ca, path: '/', agent: false, timeout: 20_000 }, (res) => {
      let body = '';
      const issuer = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer?.CN ?? '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, issuer: String(issuer) }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'slipway-bench-ingress-tls-'));
  const [adminPort, httpPort, httpsPort, askPort, upstreamPort, caddyHttpPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const acme = await startTestAcme({ httpPort });
  const dns = new RouteDns();
  const dnsPort = await dns.listen(0);
  const asked: string[] = [];
  // The `ask` endpoint: 200 when the table routes the hostname (what the agent would answer from its table).
  const ask = http.createServer((req, res) => {
    const domain = new URL(req.url ?? '/', 'http://x').searchParams.get('domain') ?? '';
    asked.push(domain);
    res.statusCode = dns.entries().some(([h]) => h === domain.toLowerCase()) ? 200 : 404;
    res.end();
  });
  ask.listen(askPort, '127.0.0.1');
  const upstream = http.createServer((_req, res) => res.end('app over https\n'));
  upstream.listen(upstreamPort, '127.0.0.1');
  let haproxy: HaProxyProcess | null = null;
  const mapFile = path.join(dir, 'hosts.map');
  if (HAPROXY) {
    ask.close(); // HAProxy answers `ask` on that port from its map
    writeFileSync(mapFile, '');
    const socket = path.join(dir, 'haproxy.sock');
    const cfg = path.join(dir, 'haproxy.cfg');
    const route = [
      `  http-request set-var(txn.up) req.hdr(host),field(1,:),lower,map(${mapFile})`,
      '  http-request return status 404 content-type "text/plain; charset=utf-8" string "No app is served at this address." if !{ var(txn.up) -m found }',
      '  default_backend apps',
    ];
    writeFileSync(
      cfg,
      [
        'global',
        `  stats socket ${socket} mode 600 level admin`,
        'defaults',
        '  mode http',
        '  timeout connect 5s',
        '  timeout client 60s',
        '  timeout server 60s',
        // The public HTTP port: ACME HTTP-01 challenges go to Caddy (which holds the orders), the rest by the map.
        'frontend ingress',
        `  bind 127.0.0.1:${httpPort}`,
        '  use_backend caddy_http if { path_beg /.well-known/acme-challenge/ }',
        ...route,
        // Internal: Caddy's on-demand `ask` (200 when the map routes the domain) and Caddy's HTTPS traffic after TLS.
        'frontend internal',
        `  bind 127.0.0.1:${askPort}`,
        `  http-request return status 200 if { path /ask } { url_param(domain),lower,map(${mapFile}) -m found }`,
        '  http-request return status 404 if { path /ask }',
        ...route,
        'backend apps',
        '  http-request set-dst ipv4(127.0.0.1)',
        '  http-request set-dst-port var(txn.up)',
        '  server dynamic 0.0.0.0:0',
        'backend caddy_http',
        `  server caddy 127.0.0.1:${caddyHttpPort}`,
        '',
      ].join('\n'),
    );
    haproxy = await spawnHaProxy(HAPROXY, cfg, socket);
  }
  const allow = async (hostname: string) => {
    if (haproxy) await haproxy.command(`add map ${mapFile} ${hostname} ${upstreamPort}`);
    else dns.set(hostname, [upstreamPort]);
  };
  const resolver = { addresses: [`udp/127.0.0.1:${dnsPort}`] };
  const route = HAPROXY
    ? { handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `127.0.0.1:${askPort}` }] }] }
    : {
    handle: [
      {
        handler: 'reverse_proxy',
        dynamic_upstreams: { source: 'srv', name: '{http.request.host}.', refresh: '1s', resolver },
        transport: { protocol: 'http', resolver },
      },
    ],
  };
  const servers = HAPROXY
    ? {
        // Caddy's HTTP listener is internal: HAProxy forwards the ACME challenges to it.
        'acme-http': { listen: [`127.0.0.1:${caddyHttpPort}`], automatic_https: { disable: true }, routes: [] },
        'slipway-https': { listen: [`:${httpsPort}`], tls_connection_policies: [{}], automatic_https: { disable_redirects: true }, routes: [route] },
      }
    : {
        ingress: { listen: [`:${httpPort}`], automatic_https: { disable: true }, routes: [route] },
        'slipway-https': { listen: [`:${httpsPort}`], tls_connection_policies: [{}], automatic_https: { disable_redirects: true }, routes: [route] },
      };
  const config = {
    admin: { listen: `127.0.0.1:${adminPort}`, config: { persist: false } },
    apps: {
      http: {
        http_port: HAPROXY ? caddyHttpPort : httpPort,
        https_port: httpsPort,
        servers,
      },
      tls: {
        automation: {
          on_demand: { ask: `http://127.0.0.1:${askPort}/ask` },
          policies: [
            {
              on_demand: true,
              issuers: [{ module: 'acme', ca: acme.directory, trusted_roots_pem_files: [acme.apiRootFile], challenges: { 'tls-alpn': { disabled: true } } }],
              storage: { module: 'file_system', root: path.join(dir, 'certs') },
            },
          ],
        },
      },
    },
  };
  const file = path.join(dir, 'caddy.json');
  writeFileSync(file, JSON.stringify(config));
  const caddy = spawn('caddy', ['run', '--config', file], { env: { ...process.env, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config') }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  caddy.stderr.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  let failed = 0;
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`http://127.0.0.1:${adminPort}/config/`).then((r) => r.ok, () => false)) break;
      if (i > 100) throw new Error(`Caddy did not start: ${log}`);
      await sleep(100);
    }
    const root = await acme.issuingRoot();
    const r = Math.random().toString(16).slice(2, 8);

    // A hostname the table does not route: no certificate, the handshake fails, the CA is never asked.
    const stranger = `stranger-${r}.slipway-test.example`;
    await acme.dns.set(stranger, { a: ['127.0.0.1'] });
    const refused = await httpsGet(httpsPort, stranger, root).then((x) => `answered ${x.status}`, (e: Error) => `refused (${e.message})`);
    console.log(`not routed: ${stranger}: ${refused}${HAPROXY ? '' : `; ask endpoint asked for it: ${asked.includes(stranger)}`}`);
    if (!refused.startsWith('refused')) failed++;

    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const hostname = `d${run}-${r}.slipway-test.example`;
      await acme.dns.set(hostname, { a: ['127.0.0.1'] });
      const t = performance.now();
      await allow(hostname); // the only change: the table (or HAProxy's map) routes the domain to the app's upstream
      const first = await httpsGet(httpsPort, hostname, root).catch((e: Error) => ({ status: 0, body: e.message, issuer: '' }));
      const ms = performance.now() - t;
      times.push(ms);
      console.log(`${hostname}: first HTTPS answer ${first.status} "${first.body.trim()}" after ${ms.toFixed(0)} ms (certificate issuer: ${first.issuer})`);
      if (first.status !== 200) failed++;
      // Over plain HTTP on the ingress port the same table routes it too.
      const plain = await new Promise<number>((resolve) => {
        http.get({ host: '127.0.0.1', port: httpPort, headers: { host: hostname }, agent: false }, (res) => resolve(res.resume() && (res.statusCode ?? 0))).on('error', () => resolve(0));
      });
      if (plain !== 200) failed++;
    }
    const config2 = await fetch(`http://127.0.0.1:${adminPort}/config/`).then((x) => x.text());
    console.log(`first HTTPS 200 after the table write: ${times.map((x) => x.toFixed(0)).join(', ')} ms; Caddy's config unchanged by the domains: ${JSON.stringify(canonical(JSON.parse(config2))) === JSON.stringify(canonical(config))}`);
    const what = `custom domains with on-demand TLS and ${HAPROXY ? "HAProxy's map" : 'the route table'}`;
    console.log(failed === 0 ? `${what}: met` : `${what}: NOT met (${failed} failed)`);
    if (failed) process.exitCode = 1;
  } finally {
    caddy.kill('SIGTERM');
    await once(caddy, 'exit').catch(() => undefined);
    if (haproxy) {
      haproxy.proc.kill('SIGTERM');
      await once(haproxy.proc, 'exit').catch(() => undefined);
    }
    await acme.close();
    await dns.close();
    ask.close();
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
