// The order of CustomDomains' writes to Caddy (docs/decisions/0034-custom-domains-across-servers.md): a hostname in a
// route of the HTTPS server makes Caddy 2.6 manage its certificate, and every later reload cancels an order in flight
// (a reload after the CA issued the certificate makes Caddy order a second one: two certificates for one domain in
// domains.fleet.spec.ts). Checked against an in-process stand-in of Caddy's admin API that keeps the config as JSON and
// records it after each write.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@slipway/core';
import { CaddyIngress } from './caddy.ingress';
import { writeStoredCertificates } from './cert-storage';
import { CustomDomains, DEFAULT_DOMAIN_SETTINGS } from './custom-domains';
import { HaproxyMap } from './haproxy';
import { MeshListener } from './mesh';

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

type Json = Record<string, unknown> | unknown[];

/** Caddy's admin API as far as the agent uses it: GET/PUT/PATCH/DELETE under /config/ and /id/. */
class FakeCaddyAdmin {
  config: Record<string, unknown> = { apps: { http: { servers: { ingress: { listen: [':80'], routes: [{ '@id': 'app-x', match: [{ host: ['x.apps.test'] }] }] } } } } };
  /** The config after each write (method, path). */
  readonly writes: { method: string; path: string; config: Record<string, unknown> }[] = [];
  private server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const url = req.url ?? '/';
    const answer = (status: number, value?: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(value === undefined ? '' : JSON.stringify(value));
    };
    let segments: string[];
    if (url.startsWith('/config/')) segments = url.slice('/config/'.length).split('/').filter(Boolean);
    else if (url.startsWith('/id/')) {
      const [id, ...rest] = url.slice('/id/'.length).split('/').filter(Boolean);
      const at = findId(this.config, id!, []);
      if (!at) return answer(404, { error: `unknown object ID '${id}'` });
      segments = [...at, ...rest];
    } else return answer(404, { error: 'not found' });
    const key = segments.pop();
    let parent: unknown = this.config;
    for (const s of segments) parent = parent === undefined || parent === null ? undefined : (parent as Record<string, unknown>)[s];
    const method = req.method ?? 'GET';
    if (key === undefined) return method === 'GET' ? answer(200, this.config) : answer(400, { error: 'not supported here' });
    if (parent === undefined || parent === null || typeof parent !== 'object') return answer(400, { error: 'invalid traversal path' });
    const container = parent as Json;
    const current = Array.isArray(container) ? container[Number(key)] : container[key];
    if (method === 'GET') return current === undefined ? answer(400, { error: 'invalid traversal path' }) : answer(200, current);
    if (method === 'PUT') {
      if (Array.isArray(container)) container.splice(Number(key), 0, body);
      else if (current !== undefined) return answer(409, { error: `key already exists: ${key}` });
      else container[key] = body;
    } else if (method === 'PATCH') {
      if (current === undefined) return answer(404, { error: 'invalid traversal path' });
      if (Array.isArray(container)) container[Number(key)] = body;
      else container[key] = body;
    } else if (method === 'DELETE') {
      if (current === undefined) return answer(404, { error: 'invalid traversal path' });
      if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete container[key];
    } else return answer(405, { error: 'method not allowed' });
    this.writes.push({ method, path: url, config: structuredClone(this.config) });
    answer(200);
  }
}

function findId(v: unknown, id: string, at: string[]): string[] | null {
  if (!v || typeof v !== 'object') return null;
  if (!Array.isArray(v) && (v as Record<string, unknown>)['@id'] === id) return at;
  for (const [k, x] of Object.entries(v)) {
    const found = findId(x, id, [...at, k]);
    if (found) return found;
  }
  return null;
}

interface Config {
  apps?: {
    http?: { servers?: Record<string, { routes?: { match?: { host?: string[] }[] }[]; automatic_https?: { skip_certificates?: string[] } }> };
    tls?: { automation?: { policies?: { subjects?: string[] }[] } };
  };
}

const hostsOf = (config: Record<string, unknown>, server: string): string[] =>
  ((config as Config).apps?.http?.servers?.[server]?.routes ?? []).flatMap((r) => r.match?.[0]?.host ?? []);

/** Hostnames of the HTTPS server's routes that neither a policy names nor the skip list holds: Caddy would order them from Let's Encrypt. */
function unmeant(config: Record<string, unknown>): string[] {
  const c = config as Config;
  const named = new Set((c.apps?.tls?.automation?.policies ?? []).flatMap((p) => p.subjects ?? []));
  const skipped = new Set(c.apps?.http?.servers?.['slipway-https']?.automatic_https?.skip_certificates ?? []);
  return hostsOf(config, 'slipway-https').filter((h) => !named.has(h) && !skipped.has(h));
}

describe("CustomDomains' writes to Caddy: one order per hostname, never cut short by the agent's own next write (issue 31)", () => {
  let dir: string;
  let caddy: FakeCaddyAdmin;
  let admin: string;
  const ingress = { onChange() {}, routes: () => [{ appId: 'x', upstreamPort: 5001 }], meshTrust: () => 'PLATFORM CA', haproxyOwnSocket: () => null } as unknown as CaddyIngress;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-domains-order-'));
    caddy = new FakeCaddyAdmin();
    admin = await caddy.start();
  });
  afterEach(async () => {
    await caddy.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("on the owner: the route that starts the order is the last write, the mesh's copy of it already made", async () => {
    const mesh = new MeshListener(admin, { port: 7444, certPem: 'MESH CERT', keyPem: 'MESH KEY' }, quiet);
    await mesh.ensure();
    const domains = await new CustomDomains(admin, path.join(dir, 'domains.json'), ingress, DEFAULT_DOMAIN_SETTINGS, quiet, mesh).load();
    const before = caddy.writes.length;

    await domains.sync([{ domainId: 'd1', appId: 'x', hostname: 'shop.example.test' }]);

    const writes = caddy.writes.slice(before);
    const first = writes.findIndex((w) => hostsOf(w.config, 'slipway-https').includes('shop.example.test'));
    expect(first).toBeGreaterThanOrEqual(0);
    // Nothing reloads Caddy after the order started: not the redirect, the TLS log, nor the mesh's copy.
    expect(writes.slice(first + 1).map((w) => `${w.method} ${w.path}`)).toEqual([]);
    expect(hostsOf(writes[first]!.config, 'slipway-mesh')).toContain('shop.example.test');
    expect(writes.every((w) => unmeant(w.config).length === 0)).toBe(true);
    // The mesh's watchdog then finds nothing to change.
    await mesh.ensure();
    expect(caddy.writes.length).toBe(before + writes.length);
  });

  it('on another server: its hostname is skipped whenever a route names it, as it comes and as it goes', async () => {
    const domains = await new CustomDomains(admin, path.join(dir, 'domains.json'), ingress, DEFAULT_DOMAIN_SETTINGS, quiet).load();
    const remote = { domainId: 'd2', appId: 'y', hostname: 'shop.example.test', ownerAddress: '198.18.0.13:7444', ownerName: 'fleet-3', challengeAddress: '198.18.0.13:80' };
    const own = { domainId: 'd3', appId: 'x', hostname: 'own.example.test' };

    await domains.sync([own], [remote]);
    expect(hostsOf(caddy.config, 'slipway-https').sort()).toEqual(['own.example.test', 'shop.example.test']);
    await domains.sync([], []);
    expect(hostsOf(caddy.config, 'slipway-https')).toEqual([]);

    expect(caddy.writes.filter((w) => unmeant(w.config).length > 0).map((w) => `${w.method} ${w.path}: ${unmeant(w.config).join(', ')}`)).toEqual([]);
  });

  it("after its workspace moved away (issue 32): the hostname it owned is served with the certificate it obtained until the new owner's is relayed; its stored copy can go then", async () => {
    const domains = await new CustomDomains(admin, path.join(dir, 'domains.json'), ingress, DEFAULT_DOMAIN_SETTINGS, quiet).load();
    const owned = { domainId: 'd1', appId: 'x', hostname: 'shop.example.test' };
    await domains.sync([owned]);
    // What Caddy obtained while this server owned it, in the policy's storage.
    const chain = '-----BEGIN CERTIFICATE-----\nOWN\n-----END CERTIFICATE-----\n';
    const key = '-----BEGIN EC PRIVATE KEY-----\nOWN\n-----END EC PRIVATE KEY-----\n';
    await writeStoredCertificates(domains.certDir, [{ hostname: 'shop.example.test', issuerKey: 'acme-v02.api.letsencrypt.org-directory', certificatePem: chain, keyPem: key, metaJson: '{}' }]);
    // Owned: its stored certificate is kept whatever is asked.
    expect(await domains.removeCertificates(['shop.example.test'])).toEqual({ removed: 0, kept: ['shop.example.test'] });

    // The workspace moved to fleet-2: the sweep gives it back as fleet-2's, with no certificate yet.
    await domains.sync([], [{ ...owned, ownerAddress: '198.18.0.12:7444', ownerName: 'fleet-2', challengeAddress: '198.18.0.12:80' }]);
    const loaded = (caddy.config as { apps: { tls: { certificates: { load_pem: { certificate: string; key: string }[] } } } }).apps.tls.certificates.load_pem;
    expect(loaded.map((c) => [c.certificate, c.key])).toEqual([[chain, key]]);
    expect(unmeant(caddy.config)).toEqual([]);
    // Its stored copy removed (the move's cleanup): still served, from what the agent keeps for the relayed ones.
    expect(await domains.removeCertificates(['shop.example.test'])).toEqual({ removed: 1, kept: [] });
    await domains.sync([], [{ ...owned, ownerAddress: '198.18.0.12:7444', ownerName: 'fleet-2', challengeAddress: '198.18.0.12:80' }]);
    expect(((caddy.config as { apps: { tls: { certificates: { load_pem: { certificate: string }[] } } } }).apps.tls.certificates.load_pem).map((c) => c.certificate)).toEqual([chain]);
  });
});

/** HAProxy's runtime socket as far as CaddyIngress uses its map (one command per connection); the map it holds. */
async function fakeHaproxy(dir: string): Promise<{ map: Map<string, string>; close: () => Promise<void> }> {
  const map = new Map<string, string>();
  const answer = (line: string): string => {
    const [verb, noun, , key, value] = line.split(' ');
    if (verb === 'show' && noun === 'info') return 'Name: HAProxy\nPid: 7\n';
    if (verb === 'show' && noun === 'map') return [...map].map(([k, v], i) => `0x${i.toString(16)} ${k} ${v}`).join('\n') + '\n';
    if (verb === 'set' && noun === 'map') return map.has(key!) ? (map.set(key!, value!), '\n') : 'entry not found.\n';
    if (verb === 'add' && noun === 'map') return (map.set(key!, value!), '\n');
    if (verb === 'del' && noun === 'map') return map.delete(key!) ? '\n' : 'entry not found.\n';
    if (verb === 'set' && noun === 'server') return line.includes(' addr ') ? "no need to change the addr, port changed from '9' to '1' by 'stats socket command'\n" : '\n';
    return 'Unknown command.\n';
  };
  const server = net.createServer((c) => {
    let text = '';
    c.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.endsWith('\n')) c.end(answer(text.trim()));
    });
  });
  await new Promise<void>((r) => server.listen(path.join(dir, 'admin.sock'), r));
  return { map, close: () => new Promise((r) => server.close(() => r())) };
}

describe('CustomDomains with HAProxy in front (decision 0040 step 4): adding, moving or removing a domain changes no Caddy config', () => {
  let dir: string;
  let caddy: FakeCaddyAdmin;
  let admin: string;
  let haproxy: Awaited<ReturnType<typeof fakeHaproxy>>;
  let ingress: CaddyIngress;
  let domains: CustomDomains;
  // A port nothing listens on: the agent's handshake that starts an on-demand order fails at once here.
  const settings = { ...DEFAULT_DOMAIN_SETTINGS, httpsPort: 9 };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-domains-table-'));
    caddy = new FakeCaddyAdmin();
    admin = await caddy.start();
    haproxy = await fakeHaproxy(dir);
    ingress = await new CaddyIngress(admin, path.join(dir, 'routes.json'), quiet, { haproxy: new HaproxyMap(dir) }).load();
    await ingress.put({ appId: 'x', host: 'x.apps.test', upstreamPort: 5001 });
    await ingress.put({ appId: 'y', host: 'y.apps.test', upstreamPort: 5002 });
    domains = await new CustomDomains(admin, path.join(dir, 'domains.json'), ingress, settings, quiet).load();
  });
  afterEach(async () => {
    await haproxy.close();
    await caddy.close();
    await rm(dir, { recursive: true, force: true });
  });

  const hostFiles = async () => (await readdir(domains.hostsDir)).sort();
  const until = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await done()); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('the first domain puts the objects that do not depend on the domains; every later one is a map entry and a file', async () => {
    await domains.sync([{ domainId: 'd1', appId: 'x', hostname: 'shop.example.test' }]);
    const config = JSON.stringify(caddy.config);
    // One on-demand policy (no subjects), last; its ask answered by this agent's route from its hosts folder.
    const tls = (caddy.config as { apps: { tls: { automation: { on_demand: { ask: string }; policies: Record<string, unknown>[] } } } }).apps.tls.automation;
    expect(tls.on_demand.ask).toBe('http://127.0.0.1:80/.slipway/ask');
    expect(tls.policies.at(-1)).toMatchObject({ on_demand: true, storage: { root: domains.certDir } });
    expect(tls.policies.at(-1)!.subjects).toBeUndefined();
    expect(config).not.toContain('shop.example.test');
    expect(unmeant(caddy.config)).toEqual([]);
    // The HTTPS server: this agent's route of its hosts folder, to HAProxy's own frontend; a 404 last.
    const https = (caddy.config as { apps: { http: { servers: Record<string, { routes: Record<string, unknown>[] }> } } }).apps.http.servers['slipway-https']!.routes;
    expect(https.map((r) => r['@id'])).toEqual([expect.stringMatching(/^domains-hosts-/), 'slipway-https-fallback']);
    expect(JSON.stringify(https[0])).toContain(`unix/${path.join(dir, 'own.sock')}`);
    expect(haproxy.map.get('d:shop.example.test')).toBe('x.apps.test');
    expect(await hostFiles()).toEqual(['shop.example.test.host']);
    const writes = caddy.writes.length;

    // Added, moved to another app, removed: HAProxy's map and the hosts folder change, Caddy's config does not.
    await domains.sync([
      { domainId: 'd1', appId: 'x', hostname: 'shop.example.test' },
      { domainId: 'd2', appId: 'x', hostname: 'www.example.test' },
    ]);
    expect(haproxy.map.get('d:www.example.test')).toBe('x.apps.test');
    expect(await hostFiles()).toEqual(['shop.example.test.host', 'www.example.test.host']);
    await domains.sync([
      { domainId: 'd1', appId: 'x', hostname: 'shop.example.test' },
      { domainId: 'd2', appId: 'y', hostname: 'www.example.test' },
    ]);
    expect(haproxy.map.get('d:www.example.test')).toBe('y.apps.test');
    await domains.sync([{ domainId: 'd1', appId: 'x', hostname: 'shop.example.test' }]);
    expect(haproxy.map.has('d:www.example.test')).toBe(false);
    expect(await hostFiles()).toEqual(['shop.example.test.host']);
    // The app's rollout (a new upstream) and the watchdog's passes: nothing either.
    await ingress.put({ appId: 'x', host: 'x.apps.test', upstreamPort: 5003 }, 5001);
    await ingress.put({ appId: 'x', host: 'x.apps.test', upstreamPort: 5003 });
    await domains.sync([{ domainId: 'd1', appId: 'x', hostname: 'shop.example.test' }]);
    expect(caddy.writes.slice(writes).map((w) => `${w.method} ${w.path}`)).toEqual([]);
    expect(JSON.stringify(caddy.config)).toBe(config);
    // The map file HAProxy loads at its next start holds the domain too.
    expect(await readFile(path.join(dir, 'ingress.map'), 'utf8')).toContain('d:shop.example.test x.apps.test\n');
  });

  it("a stopped app's domain leaves the table; the last domain gone takes this agent's objects out of Caddy", async () => {
    await domains.sync([{ domainId: 'd1', appId: 'x', hostname: 'shop.example.test' }]);
    await ingress.remove('x');
    // The domains follow the app routes' change without holding it up (their reconciliation runs after it).
    const gone = async () => [haproxy.map.has('d:shop.example.test'), (await hostFiles()).length].join() === 'false,0';
    await until(gone);
    expect(haproxy.map.has('d:shop.example.test')).toBe(false);
    expect(await hostFiles()).toEqual([]);
    await domains.sync([]);
    expect(JSON.stringify(caddy.config)).not.toContain(domains.hostsDir);
    expect(JSON.stringify(caddy.config)).not.toContain('on_demand":true');
  });
});
