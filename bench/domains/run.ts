// Custom-domain benchmark (issue 14) through the whole platform, a dnsmasq resolver and Pebble as the ACME CA:
//  1. verify → first HTTPS 200 with a freshly issued certificate: POST …/verify (records already in DNS) until the
//     app answers over HTTPS through Caddy with Pebble's certificate, p50 of --runs (default 5), PEBBLE_VA_NOSLEEP=1;
//  2. --domains (default 500) custom domains on one server: the time the agent takes to put one more domain into
//     Caddy (its route, TLS policy and the redirect), for every N up to 500, and HTTPS req/s with 500 domains against
//     with 1, alternated --rounds times (the machine's load moves) and compared by their medians. The 500 certificates are made here (openssl, one key and certificate per name) and loaded
//     into Caddy under this run's ids, so no 500 issuances hit Pebble; the domains' policies still name Pebble.
//  3. one domain added and removed at --sizes (default 10,500) domains, --changes times each (default 5): the agent's
//     change, until the new name answers over HTTPS, and the requests that failed meanwhile under a steady HTTPS load
//     to another domain of the set.
// Each of --designs (default caddy,haproxy) in turn, in the same run: `caddy` is the agent with Caddy alone (each
// domain in Caddy's config: a reload per change), `haproxy` with its own HAProxy in front (decision 0040 step 4: the
// domain a map entry and a file Caddy reads per request, certificates on demand).
// Usage: npx tsx bench/domains/run.ts [--designs caddy,haproxy] [--runs 5] [--domains 500] [--sizes 10,500] [--changes 5]
//        [--rounds 3] [--duration 5] [--connections 32] [--skip-load].
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import autocannon from 'autocannon';
import { createWorkspace, signUp, TEST_SERVICES } from '@slipway/testing';
import { getVia, startTestAcme } from '@slipway/testing/acme';
import { startTestPlatform } from '@slipway/testing/platform';
import globalSetup from '../../testing/src/global-setup';
import { exitOnFailures, verdict } from '../lib/verdict';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 5);
const DOMAINS = arg('domains', 500);
const DURATION_S = arg('duration', 5);
const ROUNDS = arg('rounds', 3);
const CONNECTIONS = arg('connections', 32);
const list = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return (i > 0 ? process.argv[i + 1]! : fallback).split(',').filter(Boolean);
};
const DESIGNS = list('designs', 'caddy,haproxy') as ('caddy' | 'haproxy')[];
const SIZES = list('sizes', '10,500').map(Number);
const CHANGES = arg('changes', 5);
const SKIP_LOAD = process.argv.includes('--skip-load');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (xs: number[]) => `p50 ${p50(xs).toFixed(0)} ms, min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)} (n=${xs.length})`;
/** Caddy's admin API; a connection Caddy closed under a reload is tried again. */
const caddy = async (method: string, p: string, body?: unknown): Promise<Response> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(`${TEST_SERVICES.caddyAdminUrl}${p}`, { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      if (attempt >= 3) throw e;
      await sleep(200);
    }
  }
};

async function main() {
  await globalSetup();
  let failures = 0;
  const summary: string[] = [];
  for (const design of DESIGNS) failures += await bench(design, summary);
  console.log(`\n== summary (same run) ==\n${summary.join('\n')}`);
  exitOnFailures(failures);
}

async function bench(design: 'caddy' | 'haproxy', summary: string[]): Promise<number> {
  console.log(`\n== design ${design} ==`);
  const acme = await startTestAcme();
  const p = await startTestPlatform({
    name: `bench-domains-${design}`,
    haproxy: design === 'haproxy',
    stopGraceMs: 1_000,
    domains: { resolvers: [acme.dns.server], acme: { directory: acme.directory, email: null, trustedRootFile: acme.apiRootFile } },
  });
  const r = randomBytes(3).toString('hex');
  const certIds: string[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'slipway-bench-domains-'));
  let failures = 0;
  const configLoads = await caddyConfigLoads();
  try {
    const root = await acme.issuingRoot();
    const client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const created = await client.post(apps, { name: `bench ${r}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 256, cpuMillis: 500 });
    if (created.status !== 201) throw new Error(`app creation answered ${created.status}: ${created.text}`);
    const app = created.body as { id: string; url: string };
    const dep = await client.post(`${apps}/${app.id}/deployments`, { image: p.images.v1 });
    for (;;) {
      if ((await p.viaIngress(app.url).catch(() => null))?.body === 'v1\n') break;
      await sleep(100);
    }
    if (dep.status !== 201) throw new Error('no deployment');

    // 1. verify → first HTTPS 200 with a fresh certificate.
    const verifyMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const host = `v${i}-${r}.slipway-test.example`;
      const d = (await client.post(`${apps}/${app.id}/domains`, { hostname: host })).body as { id: string; dns: { txtValue: string } };
      await acme.dns.set(host, { a: ['127.0.0.1'] });
      await acme.dns.set(`_svc.${host}`, { txt: [d.dns.txtValue] });
      const t0 = performance.now();
      const v = await client.post(`${apps}/${app.id}/domains/${d.id}/verify`);
      if (v.body.status !== 'verified') throw new Error(`not verified: ${v.body.check?.error}`);
      for (;;) {
        const res = await getVia(host, { ca: root, timeoutMs: 2_000 }).catch(() => null);
        if (res?.status === 200 && res.body === 'v1\n') break;
        if (performance.now() - t0 > 60_000) throw new Error(`${host}: no HTTPS 200 within 60 s`);
        await sleep(20);
      }
      verifyMs.push(performance.now() - t0);
      await client.delete(`${apps}/${app.id}/domains/${d.id}`);
    }
    console.log(`verify → first HTTPS 200 (Pebble, HTTP-01, fresh certificate): ${fmt(verifyMs)}`);
    summary.push(`${design}: verify → first HTTPS 200 ${fmt(verifyMs)}`);

    // 2. Many domains on one server. Certificates made here, one per name, loaded under this run's ids (and one more
    // per change of step 3, for the name added there).
    const extra = Array.from({ length: CHANGES }, (_, i) => `x${i}-${r}.slipway-test.example`);
    const names = [...Array.from({ length: DOMAINS }, (_, i) => `h${i}-${r}.slipway-test.example`), ...extra];
    const t0 = performance.now();
    const pems = names.map((name, i) => {
      const key = path.join(tmp, `${i}.key`);
      const crt = path.join(tmp, `${i}.crt`);
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`], { stdio: 'ignore' });
      return { '@id': `bench-cert-${r}-${i}`, certificate: readFileSync(crt, 'utf8'), key: readFileSync(key, 'utf8'), tags: [`bench-${r}`] };
    });
    certIds.push(...pems.map((x) => x['@id']));
    const tlsApp = (await (await caddy('GET', '/config/apps/tls')).json()) as { certificates?: { load_pem?: unknown[] } } | null;
    if (!tlsApp?.certificates) await caddy('PUT', '/config/apps/tls/certificates', { load_pem: pems });
    else if (!tlsApp.certificates.load_pem) await caddy('PUT', '/config/apps/tls/certificates/load_pem', pems);
    else await caddy('PATCH', '/config/apps/tls/certificates/load_pem', [...tlsApp.certificates.load_pem, ...pems]);
    console.log(`${DOMAINS} certificates made and loaded into Caddy in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const all = names.map((hostname, i) => ({ domainId: `00000000-0000-7000-8000-${r}${String(i).padStart(6, '0')}`, appId: app.id, hostname }));
    const domains = all.slice(0, DOMAINS);
    const added = all.slice(DOMAINS);

    // 3. One domain added and removed among N (the set put in place in one change first), under a steady HTTPS load to
    // the set's first domain: the agent's change, the time until the new name answers over HTTPS, requests failed.
    let lastAddP50 = 0;
    for (const size of SIZES.filter((n) => n <= DOMAINS)) {
      await p.agent.agent.domains.sync(domains.slice(0, size));
      await waitServing(names[0]!);
      const addMs: number[] = [];
      const seenMs: number[] = [];
      const removeMs: number[] = [];
      const loadsBefore = await configLoads();
      const steady = steadyLoad(names[0]!);
      for (const d of added) {
        const s = performance.now();
        await p.agent.agent.domains.sync([...domains.slice(0, size), d]);
        addMs.push(performance.now() - s);
        await waitAnswering(d.hostname);
        seenMs.push(performance.now() - s);
        const t = performance.now();
        await p.agent.agent.domains.sync(domains.slice(0, size));
        removeMs.push(performance.now() - t);
      }
      const load = await steady.stop();
      const loads = (await configLoads()) - loadsBefore;
      lastAddP50 = p50(addMs);
      // Today's design (a reload per change) is the baseline: its dropped requests are reported, not held against it.
      if (design === 'haproxy') failures += load.failed;
      const line =
        `${design}: one domain added / removed among ${size}: add ${fmt(addMs)}; until HTTPS 200 ${fmt(seenMs)}; remove ${fmt(removeMs)}; ` +
        `Caddy config loads during the ${CHANGES * 2} changes: ${loads < 0 ? 'not counted' : loads}; steady HTTPS load: ${load.failed} failed of ${load.total}`;
      console.log(line);
      summary.push(line);
    }
    if (SKIP_LOAD) return failures;

    // req/s with 1 domain against with all: alternated ROUNDS times (this machine's load moves; medians compared).
    const one: Load[] = [];
    const many: Load[] = [];
    // The certificates loaded follow: 1 with one domain, all with all (others' entries of load_pem kept).
    const loadCerts = async (n: number) => {
      const current = ((await (await caddy('GET', '/config/apps/tls/certificates/load_pem')).json()) ?? []) as { '@id'?: string }[];
      const mine = new Set(certIds);
      await caddy('PATCH', '/config/apps/tls/certificates/load_pem', [...current.filter((c) => !mine.has(c['@id'] ?? '')), ...pems.slice(0, n)]);
    };
    for (let round = 0; round < ROUNDS; round++) {
      await loadCerts(1);
      await p.agent.agent.domains.sync(domains.slice(0, 1));
      await waitServing(names[0]!);
      one.push(await load(names[0]!));
      await loadCerts(DOMAINS);
      await p.agent.agent.domains.sync(domains);
      await waitServing(names[DOMAINS - 1]!);
      many.push(await load(names[round % 2 === 0 ? DOMAINS - 1 : 0]!));
    }
    const show = (label: string, xs: Load[]) =>
      console.log(`${label}: ${xs.map((x) => x.rps.toFixed(0)).join(', ')} req/s (median ${median(xs.map((x) => x.rps)).toFixed(0)}); p50 ${xs.map((x) => x.p50).join('/')} ms, p99 ${xs.map((x) => x.p99).join('/')} ms; errors ${xs.reduce((a, x) => a + x.errors, 0)}, non-2xx ${xs.reduce((a, x) => a + x.non2xx, 0)}`);
    show('HTTPS with 1 domain and 1 certificate loaded', one);
    show(`HTTPS with ${DOMAINS} domains and ${DOMAINS} certificates (last and first added, alternately)`, many);
    const loadFailures = [...one, ...many].reduce((sum, x) => sum + x.errors + x.non2xx, 0);
    failures += loadFailures;
    const ratio = median(many.map((x) => x.rps)) / median(one.map((x) => x.rps));
    console.log(`ratio ${DOMAINS} / 1 (medians of ${ROUNDS} alternated rounds): ${ratio.toFixed(3)} (${CONNECTIONS} connections, ${DURATION_S} s each)`);
    const targets =
      `${design} targets: verify → HTTPS p50 ≤ 5000 ms ${verdict(p50(verifyMs) <= 5000, 0)}; adding one domain among ${Math.max(...SIZES)} p50 ≤ 200 ms ${verdict(lastAddP50 <= 200, 0)}; ` +
      `req/s with ${DOMAINS} ≥ 0.9 × with 1 ${verdict(ratio >= 0.9, loadFailures)}`;
    console.log(targets);
    summary.push(targets);
    return failures;
  } finally {
    await p.agent.agent.domains.sync([]).catch(() => undefined);
    // The loaded certificates of this run out, in one change (others' entries kept).
    const mine = new Set(certIds);
    const loaded = (await (await caddy('GET', '/config/apps/tls/certificates/load_pem').catch(() => null))?.json().catch(() => null)) as { '@id'?: string }[] | null;
    if (loaded?.length) await caddy('PATCH', '/config/apps/tls/certificates/load_pem', loaded.filter((c) => !mine.has(c['@id'] ?? ''))).catch(() => undefined);
    await p.close();
    await acme.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * Caddy's config loads so far, read from the machine's Caddy log (`SLIPWAY_CADDY_LOG`, default
 * /var/log/slipway/caddy-start.log: each load logs "admin endpoint started" once): a function answering the count now,
 * or -1 when the log cannot be read here. Loads by other suites on the shared Caddy meanwhile count too.
 */
async function caddyConfigLoads(): Promise<() => Promise<number>> {
  const file = process.env.SLIPWAY_CADDY_LOG ?? '/var/log/slipway/caddy-start.log';
  return async () => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter((l) => l.includes('"admin endpoint started"')).length;
    } catch {
      return -1;
    }
  };
}

/** An HTTPS 200 from the app for `host` (its certificate not checked: the bench's own, self-signed). */
async function waitAnswering(host: string) {
  const t0 = performance.now();
  const once = () =>
    new Promise<number>((resolve) => {
      const req = https.request({ host: '127.0.0.1', port: 443, servername: host, headers: { Host: host }, rejectUnauthorized: false, agent: false, timeout: 2_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end();
    });
  for (;;) {
    if ((await once()) === 200) return;
    if (performance.now() - t0 > 30_000) throw new Error(`${host}: no HTTPS 200 within 30 s`);
    await sleep(10);
  }
}

/** Keep-alive HTTPS requests to `host` (8 connections) until stop(): how many were sent and how many failed. */
function steadyLoad(host: string): { stop: () => Promise<{ total: number; failed: number }> } {
  let result: autocannon.Result | null = null;
  const instance = autocannon({ url: 'https://127.0.0.1:443/', servername: host, headers: { host }, connections: 8, duration: 3_600 }, (_e, r) => (result = r));
  return {
    async stop() {
      instance.stop();
      for (let i = 0; i < 250 && !result; i++) await sleep(20);
      const r = result as autocannon.Result | null;
      if (!r) return { total: 0, failed: 1 };
      return { total: r.requests.total, failed: r.errors + r.timeouts + r.non2xx };
    },
  };
}

async function waitServing(host: string) {
  const t0 = performance.now();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port: 443, servername: host, rejectUnauthorized: false }, () => {
        const names = String(s.getPeerCertificate().subjectaltname ?? '');
        s.end();
        resolve(names.includes(host));
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (performance.now() - t0 > 30_000) throw new Error(`${host} not served over HTTPS within 30 s`);
    await sleep(100);
  }
}

async function load(host: string): Promise<Load> {
  const url = `https://127.0.0.1:443/`;
  const opts = { url, servername: host, headers: { host }, connections: CONNECTIONS };
  await autocannon({ ...opts, duration: 2 });
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
