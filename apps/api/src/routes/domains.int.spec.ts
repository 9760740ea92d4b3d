// Issue 14: custom domains end to end — real PostgreSQL, Redis, Docker, this machine's Caddy, a dnsmasq the agent
// resolves with, and Pebble as the ACME CA (its HTTP-01 validations answered by Caddy on the ingress port).
// Hostnames are under a test-only TLD; only ids this platform owns are added to or removed from Caddy.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { DomainCheckService } from '@slipway/core';
import { createJobStores } from '@slipway/db';
import { DomainsPool } from '@slipway/proto';
import { createWorkspace, requestFresh, signUp, TEST_SERVICES, type ApiClient } from '@slipway/testing';
import { getVia, startTestAcme, type TestAcme } from '@slipway/testing/acme';
import { TEST_INGRESS_HAPROXY } from '@slipway/testing/haproxy';
import { requires } from '@slipway/testing/skips';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { silentLogger } from '@slipway/testing/logger';
import { waitFor, waitUntil } from '@slipway/testing/worker';

jest.setTimeout(240_000);

interface DomainView {
  id: string;
  hostname: string;
  hostnameUnicode: string;
  status: string;
  dns: { a: string[]; aaaa: string[]; txtName: string; txtValue: string; cname: string | null };
  check: { a: string[]; txt: boolean; cname: string | null; at: string; error: string | null } | null;
  routed: boolean;
  certificate: { status: string; issuer: string | null; notAfter: string | null; error: string | null };
}

/** Caddy's admin API on a fresh connection each time (`requestFresh`): a config change closes idle ones (CI run 14). */
const admin = (method: string, p: string) => requestFresh(`${TEST_SERVICES.caddyAdminUrl}${p}`, { method });
const caddy = async (path: string): Promise<unknown> => {
  const res = await admin('GET', path);
  return res.status >= 200 && res.status < 300 ? JSON.parse(res.body) : null;
};
/** The ids of the Caddy objects (routes, policies) whose JSON names `hostname`. */
const holding = (v: unknown, hostname: string): string[] =>
  ((Array.isArray(v) ? v : []) as { '@id'?: string }[]).filter((o) => JSON.stringify(o).includes(`"${hostname}"`)).map((o) => o['@id'] ?? '');

/** Cases of the HAProxy design only (decision 0040 step 4: custom domains in HAProxy's map, Caddy's config unchanged by them). */
const haproxyDesign = requires({ met: TEST_INGRESS_HAPROXY, reason: 'custom domains as HAProxy map entries: runs with SLIPWAY_TEST_INGRESS=haproxy' });

describe('custom domains (dnsmasq, Pebble, Caddy)', () => {
  let acme: TestAcme;
  let p: TestPlatform;
  let alice: ApiClient;
  let bob: ApiClient;
  let ws: { id: string };
  let bobWs: { id: string };
  let app: { id: string; url: string };
  let pebbleRoot: string;
  const r = randomBytes(3).toString('hex');
  const zone = `d${r}.slipway-test.example`;
  const www = `www.${zone}`;
  // A clock the test moves: re-checks are driven by calling the job's handler, not by waiting minutes.
  let now = Date.now();
  let checks: DomainCheckService;

  beforeAll(async () => {
    acme = await startTestAcme();
    p = await startTestPlatform({
      name: 'domains',
      readyTimeoutMs: 10_000,
      stopGraceMs: 1_000,
      domains: { resolvers: [acme.dns.server], acme: { directory: acme.directory, email: null, trustedRootFile: acme.apiRootFile } },
    });
    pebbleRoot = await acme.issuingRoot();
    checks = new DomainCheckService({
      store: createJobStores(p.db).domains,
      agents: new DomainsPool(p.worker.agents),
      appsDomain: { domain: p.appsDomain, scheme: 'http' },
      clock: () => new Date(now),
      logger: silentLogger,
      enqueueCheck: async () => undefined,
    });
    alice = p.client();
    bob = p.client();
    await signUp(alice);
    await signUp(bob);
    ws = await createWorkspace(alice);
    bobWs = await createWorkspace(bob);
    const created = await alice.post(`/v1/workspaces/${ws.id}/apps`, { name: `site ${r}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(created.status).toBe(201);
    app = created.body;
    await deployLive(p.images.v1);
  });

  afterAll(async () => {
    await p?.close();
    await acme?.close();
  });

  const domains = (appId = app.id, w = ws.id) => `/v1/workspaces/${w}/apps/${appId}/domains`;
  const deployLive = async (image: string) => {
    const d = await alice.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`, { image });
    expect(d.status).toBe(201);
    await waitFor(async () => ((await alice.get(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${d.body.id}`)).body.status === 'live' ? true : null), 90_000, 'the deployment to go live');
  };
  const add = async (client: ApiClient, hostname: string, w = ws.id, appId = app.id) => {
    const res = await client.post(domains(appId, w), { hostname });
    expect(res.status).toBe(201);
    return res.body as DomainView;
  };
  const verify = async (d: DomainView, client = alice, w = ws.id, appId = app.id) => {
    const res = await client.post(`${domains(appId, w)}/${d.id}/verify`);
    expect(res.status).toBe(200);
    return res.body as DomainView;
  };
  const https = (hostname: string) => getVia(hostname, { ca: pebbleRoot }).catch((e: Error) => ({ status: 0, body: e.message, location: null, issuer: null }));
  const servesOverHttps = (hostname: string, body: string) =>
    waitFor(async () => {
      const res = await https(hostname);
      return res.status === 200 && res.body === body ? res : null;
    }, 30_000, `https://${hostname} to answer ${JSON.stringify(body)}`);
  // Where this agent's domains live: Caddy alone, objects naming each hostname; HAProxy in front, a map entry
  // `d:<hostname>` and a file of its hosts folder per hostname, and Caddy objects of the agent's that name none.
  const mapFile = () => path.join(p.agent.haproxy!.dir, 'ingress.map');
  const hostsDir = () => path.join(p.agent.dataDir, 'domain-hosts');
  const inMap = async (hostname: string) => (p.agent.haproxy ? /found=yes/.test(await p.agent.haproxy.command(`get map ${mapFile()} d:${hostname}`)) : false);
  /** The ids of the Caddy objects serving `hostname` now (by name, or through the agent's hosts folder), and the map entry. */
  const serving = async (hostname: string) => {
    const routes = await caddy('/config/apps/http/servers/slipway-https/routes');
    const policies = await caddy('/config/apps/tls/automation/policies');
    if (!p.agent.haproxy) return { routes: holding(routes, hostname), policies: holding(policies, hostname), mapped: false };
    const listed = existsSync(path.join(hostsDir(), `${hostname}.host`));
    return { routes: listed ? holding(routes, hostsDir()) : [], policies: listed ? holding(policies, path.join(p.agent.dataDir, 'caddy-certs')) : [], mapped: await inMap(hostname) };
  };
  /** Takes what serves `hostname` out of Caddy (and HAProxy's map) behind the agent's back, as a restart of them would. */
  const lose = async (hostname: string) => {
    const { routes, policies } = await serving(hostname);
    for (const id of [...routes, ...policies]) await admin('DELETE', `/id/${id}`);
    if (p.agent.haproxy) await p.agent.haproxy.command(`del map ${mapFile()} d:${hostname}`);
    return { routes, policies };
  };
  const restored = async (hostname: string) => {
    const now = await serving(hostname);
    return now.routes.length > 0 && now.policies.length > 0 && now.mapped === Boolean(p.agent.haproxy);
  };
  /** This agent's objects in Caddy's config (whatever names them) and the on-demand ask: what a domain must not change. */
  const agentObjects = async () => {
    const config = (await caddy('/config/')) as { apps?: { http?: { servers?: Record<string, { routes?: unknown[] }> }; tls?: { automation?: { policies?: unknown[]; on_demand?: unknown } } } };
    const mine = (xs: unknown[] | undefined) => (xs ?? []).filter((x) => JSON.stringify(x).includes(p.agent.dataDir));
    const servers = config.apps?.http?.servers ?? {};
    return JSON.stringify({
      https: mine(servers['slipway-https']?.routes),
      ingress: mine(servers.ingress?.routes),
      policies: mine(config.apps?.tls?.automation?.policies),
      onDemand: config.apps?.tls?.automation?.on_demand ?? null,
    });
  };
  /** The certificate Caddy stored for `hostname` (the on-demand order's result), found without any request to it. */
  const stored = async (hostname: string) => {
    const root = path.join(p.agent.dataDir, 'caddy-certs', 'certificates');
    const issuers = await readdir(root).catch(() => [] as string[]);
    return issuers.some((issuer) => existsSync(path.join(root, issuer, hostname, `${hostname}.crt`)));
  };
  /** The job's handler with the clock past the domain's next check. */
  const recheck = async (domainId: string) => {
    const row = await p.db.domain.findUniqueOrThrow({ where: { id: domainId } });
    now = Math.max(now, (row.nextCheckAt ?? new Date()).getTime()) + 1_000;
    return checks.check(domainId);
  };

  it('refuses what cannot be a custom domain, each with its own 4xx code', async () => {
    const refused = async (hostname: unknown, status: number, code: string, reason?: string) => {
      const res = await alice.post(domains(), { hostname });
      expect({ status: res.status, code: res.body.error?.code, reason: res.body.error?.details?.[0]?.reason }).toEqual({ status, code, reason });
    };
    await refused('203.0.113.9', 400, 'invalid_hostname', 'ip_address');
    await refused('localhost', 400, 'invalid_hostname', 'localhost');
    await refused('intranet', 400, 'invalid_hostname', 'single_label');
    await refused(`*.${zone}`, 400, 'invalid_hostname', 'wildcard');
    await refused(`shop.${p.appsDomain}`, 400, 'invalid_hostname', 'apps_domain');
    await refused('bad_name!.example', 400, 'invalid_hostname', 'invalid');
    await refused(42, 400, 'validation_failed', undefined);
    const extra = await alice.post(domains(), { hostname: `x.${zone}`, port: 1 });
    expect(extra.body.error.code).toBe('validation_failed');
    const worker = await alice.post(`/v1/workspaces/${ws.id}/apps`, { name: `worker ${r}`, kind: 'worker', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(worker.status).toBe(201);
    const notWeb = await alice.post(domains(worker.body.id), { hostname: `w.${zone}` });
    expect({ status: notWeb.status, code: notWeb.body.error.code }).toEqual({ status: 409, code: 'app_not_web' });
    await alice.delete(`/v1/workspaces/${ws.id}/apps/${worker.body.id}`);
    // Another workspace's app is not there at all.
    const foreign = await bob.post(domains(app.id, bobWs.id), { hostname: `f.${zone}` });
    expect(foreign.status).toBe(404);
  });

  it('lowercases names, keeps internationalised ones in punycode and shows both', async () => {
    const d = await add(alice, `Bücher.${zone.toUpperCase()}`);
    expect(d).toMatchObject({ hostname: `xn--bcher-kva.${zone}`, hostnameUnicode: `bücher.${zone}`, status: 'pending' });
    expect((await alice.delete(`${domains()}/${d.id}`)).status).toBe(200);
  });

  it('verifies a domain once its records exist, gets it a certificate from the ACME CA and serves the app over HTTPS', async () => {
    const d = await add(alice, www);
    expect(d).toMatchObject({
      hostname: www,
      status: 'pending',
      dns: { a: ['127.0.0.1'], aaaa: [], txtName: `_svc.${www}`, cname: new URL(app.url).host },
      check: null,
      routed: false,
      certificate: { status: 'none' },
    });
    expect(d.dns.txtValue).toMatch(/^slipway-verify=/);

    // Before the records exist: still pending, and the check says what is missing.
    const early = await verify(d);
    expect(early.status).toBe('pending');
    expect(early.check?.error).toContain(`TXT record _svc.${www} not found`);

    await acme.dns.set(www, { a: ['127.0.0.1'] });
    await acme.dns.set(`_svc.${www}`, { txt: [d.dns.txtValue] });
    const verified = await verify(d);
    expect(verified).toMatchObject({ status: 'verified', routed: true, check: { a: ['127.0.0.1'], txt: true, error: null } });

    // Pebble validates over HTTP-01 (answered by Caddy on the ingress port) and the app answers over HTTPS.
    const res = await servesOverHttps(www, 'v1\n');
    expect(res.issuer).toMatch(/Pebble/);
    // A verify asks the server for the certificate state; a read answers what was collected, never asking (issue 34).
    const withCert = await waitUntil(() => verify(d), (got) => got.certificate.status === 'issued', 20_000, 'the certificate to show as issued');
    expect(((await alice.get(`${domains()}/${d.id}`)).body as DomainView).certificate).toEqual(withCert.certificate);
    expect(withCert.certificate.issuer).toMatch(/Pebble/);
    expect(new Date(withCert.certificate.notAfter!).getTime()).toBeGreaterThan(Date.now());
    // Plain HTTP to the verified name redirects to HTTPS.
    const plain = await getVia(www, { ca: null, path: '/page?q=1' });
    expect({ status: plain.status, location: plain.location }).toEqual({ status: 308, location: `https://${www}/page?q=1` });
    // The app's own subdomain is still served over plain HTTP (other routes of the shared Caddy are untouched).
    expect((await p.viaIngress(app.url)).body).toBe('v1\n');

    // Listed.
    const list = await alice.get(domains());
    expect(list.body.data.map((x: DomainView) => x.hostname)).toEqual([www]);
  });

  haproxyDesign.it('adds and removes a domain without changing Caddy\'s config, its certificate ordered before any visitor (HAProxy design)', async () => {
    const before = await agentObjects();
    expect(before).toContain('on_demand');
    const two = `two.${zone}`;
    const d = await add(alice, two);
    await acme.dns.set(two, { a: ['127.0.0.1'] });
    await acme.dns.set(`_svc.${two}`, { txt: [d.dns.txtValue] });
    expect((await verify(d)).status).toBe('verified');
    // No request to the name and no read of the domain (whose certificate status is a handshake): the agent's own
    // handshake started Caddy's on-demand order, answered by its ask route from the hosts folder.
    await waitUntil(() => stored(two), Boolean, 30_000, `a certificate for ${two} in the agent's storage`);
    expect(await agentObjects()).toBe(before);
    expect(JSON.stringify(await caddy('/config/'))).not.toContain(two);
    expect(await inMap(two)).toBe(true);
    const res = await servesOverHttps(two, 'v1\n');
    expect(res.issuer).toMatch(/Pebble/);
    const plain = await getVia(two, { ca: null, path: '/x' });
    expect({ status: plain.status, location: plain.location }).toEqual({ status: 308, location: `https://${two}/x` });

    expect((await alice.delete(`${domains()}/${d.id}`)).status).toBe(200);
    expect(await serving(two)).toEqual({ routes: [], policies: [], mapped: false });
    expect(await agentObjects()).toBe(before);
    expect((await https(two)).status).not.toBe(200);
  });

  it('keeps the domain routed through redeploys, stop and start, rollbacks, and restores it after Caddy loses it or the agent restarts', async () => {
    await deployLive(p.images.v2);
    await servesOverHttps(www, 'v2\n');

    expect((await alice.post(`/v1/workspaces/${ws.id}/apps/${app.id}/stop`)).status).toBe(200);
    await waitUntil(() => https(www), (res) => res.status !== 200, 30_000, 'the stopped app to leave HTTPS');
    expect((await alice.post(`/v1/workspaces/${ws.id}/apps/${app.id}/start`)).status).toBe(200);
    await servesOverHttps(www, 'v2\n');

    // A rollback to the first deployment: the custom domain follows the app to it.
    const history = (await alice.get(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments`)).body.data as { id: string; image: string }[];
    const first = history.find((x) => x.image === p.images.v1)!;
    expect((await alice.post(`/v1/workspaces/${ws.id}/apps/${app.id}/deployments/${first.id}/rollback`)).status).toBe(201);
    await servesOverHttps(www, 'v1\n');

    // Caddy lost the route (as after a restart with its bootstrap config; with HAProxy, its map entry too): the agent's
    // watchdog puts it back.
    const lost = await lose(www);
    expect(lost).toEqual({ routes: [expect.stringMatching(/^domains-(app|hosts)-/)], policies: [expect.stringMatching(/^domains-tls-/)] });
    // The removals are several changes: a watchdog pass between them puts the route back first, the next the policy.
    await waitUntil(() => restored(www), Boolean, 10_000, 'the route and its TLS policy to come back');
    expect((await serving(www)).policies).toEqual(lost.policies);
    await servesOverHttps(www, 'v1\n');

    // Caddy loses the domain while the agent restarts: the agent puts it back from its own file.
    await lose(www);
    await p.agent.restart();
    await servesOverHttps(www, 'v1\n');
    // And the control plane's sweep (once the connection to the restarted agent is back) gives it the same set.
    await waitFor(async () => (await checks.sweep()).nodes === 1, 20_000, 'the sweep to reach the restarted agent');
    await servesOverHttps(www, 'v1\n');
  });

  it('does not verify a wrong A record or a TXT token copied from another workspace, and refuses a taken hostname', async () => {
    const taken = await bob.post(`/v1/workspaces/${bobWs.id}/apps`, { name: `bob ${r}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(taken.status).toBe(201);
    const dup = await bob.post(domains(taken.body.id, bobWs.id), { hostname: www.toUpperCase() });
    expect({ status: dup.status, code: dup.body.error.code }).toEqual({ status: 409, code: 'domain_taken' });

    // Alice's token at Bob's name: never Bob's proof.
    const aliceToken = ((await alice.get(domains())).body.data as DomainView[])[0]!.dns.txtValue;
    const shop = `shop.${zone}`;
    const bobs = await add(bob, shop, bobWs.id, taken.body.id);
    await acme.dns.set(shop, { a: ['127.0.0.1'] });
    await acme.dns.set(`_svc.${shop}`, { txt: [aliceToken] });
    const copied = await verify(bobs, bob, bobWs.id, taken.body.id);
    expect(copied.status).toBe('pending');
    expect(copied.check?.error).toContain(`TXT record _svc.${shop} holds "${aliceToken}", expected "${bobs.dns.txtValue}"`);

    // Right token, wrong address.
    const api = `api.${zone}`;
    const d = await add(alice, api);
    await acme.dns.set(api, { a: ['203.0.113.9'] });
    await acme.dns.set(`_svc.${api}`, { txt: [d.dns.txtValue] });
    const wrong = await verify(d);
    expect(wrong).toMatchObject({ status: 'pending', routed: false, check: { a: ['203.0.113.9'], txt: true, error: 'A record points at 203.0.113.9, expected 127.0.0.1' } });

    // At most 20 domains per app: the 21st is refused with the resource named.
    for (let i = 1; i < 20; i++) await add(bob, `n${i}.${zone}`, bobWs.id, taken.body.id);
    const over = await bob.post(domains(taken.body.id, bobWs.id), { hostname: `n20.${zone}` });
    expect({ status: over.status, code: over.body.error.code, details: over.body.error.details }).toEqual({
      status: 402,
      code: 'quota_exceeded',
      details: [{ resource: 'domains', requested: 1, available: 0 }],
    });

    // Pending for 7 days without passing: failed; a later manual verify that passes still succeeds.
    now = Date.now() + 7 * 24 * 3600_000;
    expect(await recheck(d.id)).toMatchObject({ status: 'failed' });
    await acme.dns.set(api, { a: ['127.0.0.1'] });
    expect((await verify(d)).status).toBe('verified');
    expect((await alice.delete(`${domains()}/${d.id}`)).status).toBe(200);
  });

  it("accepts a subdomain's CNAME to the app's own subdomain instead of an A record, and serves it over HTTPS", async () => {
    const appHost = new URL(app.url).host;
    const shop = `cname.${zone}`;
    const d = await add(alice, shop);
    expect(d.dns.cname).toBe(appHost);
    await acme.dns.set(appHost, { a: ['127.0.0.1'] });
    await acme.dns.set(shop, { cname: appHost });
    await acme.dns.set(`_svc.${shop}`, { txt: [d.dns.txtValue] });
    const verified = await verify(d);
    expect(verified).toMatchObject({ status: 'verified', check: { cname: appHost, txt: true, error: null } });
    await servesOverHttps(shop, 'v1\n');
    // An apex name gets no CNAME choice.
    const apex = await add(alice, `apex${r}.example`);
    expect(apex.dns.cname).toBeNull();
    for (const x of [d, apex]) expect((await alice.delete(`${domains()}/${x.id}`)).status).toBe(200);
  });

  it('takes a verified domain down only after 3 failed re-checks, and brings it back when its records return', async () => {
    const d = ((await alice.get(domains())).body.data as DomainView[]).find((x) => x.hostname === www)!;
    await acme.dns.remove(www);
    await acme.dns.remove(`_svc.${www}`);
    expect(await recheck(d.id)).toMatchObject({ status: 'verified' });
    expect(await recheck(d.id)).toMatchObject({ status: 'verified' });
    // Two failures in a row: a DNS flap does not take the site offline.
    expect((await https(www)).status).toBe(200);
    const third = await recheck(d.id);
    expect(third).toMatchObject({ status: 'failed' });
    expect(third?.error).toContain(`TXT record _svc.${www} not found`);
    const failed = (await alice.get(`${domains()}/${d.id}`)).body as DomainView;
    expect(failed).toMatchObject({ status: 'failed', routed: false });
    expect(await serving(www)).toEqual({ routes: [], policies: [], mapped: false });
    expect((await https(www)).status).not.toBe(200);

    await acme.dns.set(www, { a: ['127.0.0.1'] });
    await acme.dns.set(`_svc.${www}`, { txt: [d.dns.txtValue] });
    expect(await recheck(d.id)).toMatchObject({ status: 'verified' });
    await servesOverHttps(www, 'v1\n');
  });

  it('removes the route and certificate policy on delete, and deleting the app removes its domains', async () => {
    const d = ((await alice.get(domains())).body.data as DomainView[]).find((x) => x.hostname === www)!;
    expect((await alice.delete(`${domains()}/${d.id}`)).status).toBe(200);
    expect((await alice.get(`${domains()}/${d.id}`)).status).toBe(404);
    // No route, redirect or certificate policy names the hostname any more (nor HAProxy's map, nor the hosts folder).
    expect(JSON.stringify(await caddy('/config/'))).not.toContain(`"${www}"`);
    expect(await serving(www)).toEqual({ routes: [], policies: [], mapped: false });
    expect((await https(www)).status).not.toBe(200);

    // A domain of an app that is then deleted goes with it, and its name is free again.
    const again = await add(alice, www);
    await verify(again);
    expect((await alice.delete(`/v1/workspaces/${ws.id}/apps/${app.id}`)).status).toBe(200);
    expect(await p.db.domain.count({ where: { appId: app.id } })).toBe(0);
    expect(JSON.stringify(await caddy('/config/'))).not.toContain(`"${www}"`);
    // With no domain left, the agent's log of certificate events leaves Caddy's config too.
    await waitFor(async () => !JSON.stringify(await caddy('/config/logging')).includes(p.agent.dataDir), 10_000, 'the TLS log to go');
  });
});
