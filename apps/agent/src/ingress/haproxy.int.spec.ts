// The ingress with HAProxy in front (decision 0040, issue 34 item 2): the agent's own CaddyIngress writing the map of a
// HAProxy started from deploy/haproxy/haproxy.cfg (on a free loopback port; hosts it does not hold go to the machine's
// shared Caddy, which is only read). 5,000 routes are in the map file before HAProxy starts, so the suite runs in seconds.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AppRoute } from '@slipway/core';
import { TEST_SERVICES } from '@slipway/testing';
import { startTestHaproxy, type TestHaproxy } from '@slipway/testing/haproxy';
import { silentLogger } from '@slipway/testing/logger';
import { PrivateCaddy } from '@slipway/testing/private-services';
import { CaddyIngress, toCaddy } from './caddy.ingress';
import { HaproxyMap } from './haproxy';

const ROUTES = 5_000;
const tag = randomBytes(3).toString('hex');
const host = (name: string) => `${name}-${tag}.haproxy-test.localhost`;

/** An upstream answering `up <name>` to every request (keep-alive). */
async function upstream(name: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.end(`up ${name}\n`));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function get(port: number, h: string, agent: http.Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { host: h }, agent, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/**
 * Steady load on one host until stopped: 8 keep-alive connections and 4 loops of one-request connections, every
 * answer that is not the host's upstream counted as failed.
 */
function steadyLoad(port: number, h: string, want: string) {
  let running = true;
  let total = 0;
  const failed: string[] = [];
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const loop = async (agent: http.Agent | false) => {
    while (running) {
      const answer = await get(port, h, agent).catch((e: Error) => ({ status: 0, body: e.message }));
      total++;
      if (answer.status !== 200 || answer.body !== want) failed.push(`${answer.status} ${answer.body.trim().slice(0, 80)}`);
    }
  };
  const loops = [...Array.from({ length: 8 }, () => loop(keepAlive)), ...Array.from({ length: 4 }, () => loop(false))];
  return async () => {
    running = false;
    await Promise.all(loops);
    keepAlive.destroy();
    return { total, failed };
  };
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** 5,000 routes as a running agent has them (its routes file), the first one `steady` on `steadyPort`. */
async function seedRoutes(dir: string, steadyPort: number, otherPorts: number[]): Promise<AppRoute[]> {
  const routes: AppRoute[] = [
    { appId: `steady-${tag}`, host: host('steady'), upstreamPort: steadyPort },
    ...Array.from({ length: ROUTES - 1 }, (_, i) => ({ appId: `app${i}-${tag}`, host: host(`app${i}`), upstreamPort: otherPorts[i % otherPorts.length]! })),
  ];
  await writeFile(path.join(dir, 'routes.json'), JSON.stringify({ routes, owned: routes.map((r) => r.appId) }));
  return routes;
}

/**
 * The test, against the ingress designs SLIPWAY_TEST_INGRESS_DESIGNS names (default `haproxy`, the design of
 * decision 0040; `caddy`, today's default of a Caddy route per app, fails it: each change reloads Caddy's whole config
 * and requests on its kept-alive connections fail).
 */
const DESIGNS = (process.env.SLIPWAY_TEST_INGRESS_DESIGNS ?? 'haproxy').split(',');

describe.each(DESIGNS)('a route added while 5,000 exist, %s design', (design) => {
  let dir: string;
  let port: number;
  let ingress: CaddyIngress;
  let haproxy: TestHaproxy | null = null;
  let caddy: PrivateCaddy | null = null;
  const up: Record<'a' | 'b' | 'c', Awaited<ReturnType<typeof upstream>>> = {} as never;

  beforeAll(async () => {
    up.a = await upstream('a');
    up.b = await upstream('b');
    up.c = await upstream('c');
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-ingress-routes-'));
    const routes = await seedRoutes(dir, up.a.port, [up.b.port, up.c.port]);
    if (design === 'caddy') {
      // A Caddy of the test's own with the 5,000 routes as CaddyIngress writes them, in front of the 404 fallback.
      caddy = await PrivateCaddy.start();
      const config = (await (await fetch(`${caddy.adminUrl}/config/`)).json()) as { apps: { http: { servers: { ingress: { routes: unknown[] } } } } };
      config.apps.http.servers.ingress.routes = [...routes.map((r) => toCaddy(r)), ...config.apps.http.servers.ingress.routes];
      const loaded = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
      expect(loaded.status).toBe(200);
      ingress = await new CaddyIngress(caddy.adminUrl, path.join(dir, 'routes.json'), silentLogger).load();
      port = caddy.httpPort;
    } else {
      haproxy = await startTestHaproxy({ map: routes.map((r) => `${r.host} ${r.upstreamPort}\n`).join('') });
      ingress = await new CaddyIngress(TEST_SERVICES.caddyAdminUrl, path.join(dir, 'routes.json'), silentLogger, { haproxy: new HaproxyMap(haproxy.dir) }).load();
      port = haproxy.port;
    }
  });

  afterAll(async () => {
    await haproxy?.stop();
    await caddy?.remove();
    await Promise.all(Object.values(up).map((u) => u.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('a route added while 5,000 exist does not drop requests to the others (steady load, 0 failures), and is served at once', async () => {
    const stop = steadyLoad(port, host('steady'), 'up a\n');
    await new Promise((r) => setTimeout(r, 300));
    const timings: number[] = [];
    const answers: string[] = [];
    const timed = async (change: () => Promise<void>) => {
      const t = performance.now();
      await change();
      timings.push(performance.now() - t);
      answers.push(`${(await get(port, host('added'))).status} ${(await get(port, host('added'))).body.trim()}`);
    };
    await timed(() => ingress.put({ appId: `added-${tag}`, host: host('added'), upstreamPort: up.b.port }));
    await timed(() => ingress.put({ appId: `added-${tag}`, host: host('added'), upstreamPort: up.c.port }));
    await timed(() => ingress.remove(`added-${tag}`));
    await new Promise((r) => setTimeout(r, 300));
    const load = await stop();
    // Seen at the next request: added, moved, removed (the host then goes to Caddy behind HAProxy: today's 404).
    expect(answers).toEqual(['200 up b', '200 up c', '404 No app is served at this address.']);
    expect(load.failed).toEqual([]);
    expect(load.total).toBeGreaterThan(100);
    process.stdout.write(`${design}: one route change at ${ROUTES} routes (add, move, remove): ${timings.map((t) => t.toFixed(1)).join(', ')} ms; ${load.total} requests, 0 failed\n`);
  });

});

describe('the ingress with HAProxy in front: app routes in its map (decision 0040)', () => {
  let dir: string;
  let haproxy: TestHaproxy;
  let ingress: CaddyIngress;
  const up: Record<'a' | 'b' | 'c', Awaited<ReturnType<typeof upstream>>> = {} as never;

  beforeAll(async () => {
    up.a = await upstream('a');
    up.b = await upstream('b');
    up.c = await upstream('c');
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-haproxy-routes-'));
    // 5,000 routes as a running agent would have them: in its routes file and in the map file HAProxy loads at start.
    const routes = await seedRoutes(dir, up.a.port, [up.c.port, up.b.port]);
    haproxy = await startTestHaproxy({ map: routes.map((r) => `${r.host} ${r.upstreamPort}\n`).join('') });
    ingress = await new CaddyIngress(TEST_SERVICES.caddyAdminUrl, path.join(dir, 'routes.json'), silentLogger, { haproxy: new HaproxyMap(haproxy.dir) }).load();
  });

  afterAll(async () => {
    ingress?.stop();
    await haproxy?.stop();
    await Promise.all(Object.values(up).map((u) => u.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('holds 5,000 routes and serves them', async () => {
    expect((await haproxy.command('show map')).match(/entry_cnt=(\d+)/)?.[1]).toBe(String(ROUTES));
    // What the watchdog reads at each tick instead of the whole map.
    expect(await new HaproxyMap(haproxy.dir).count()).toBe(ROUTES);
    expect((await get(haproxy.port, host('steady'))).body).toBe('up a\n');
    expect((await get(haproxy.port, host('app1'))).body).toBe('up b\n');
    expect((await get(haproxy.port, host('app4998'))).body).toBe('up c\n');
  });

  it('rewrites the map file after a change: what HAProxy loads at its next start', async () => {
    await ingress.put({ appId: `filed-${tag}`, host: host('filed'), upstreamPort: up.b.port });
    const lines = (await readFile(path.join(haproxy.dir, 'ingress.map'), 'utf8')).split('\n').filter(Boolean);
    expect(lines).toHaveLength(ROUTES + 1);
    expect(lines).toContain(`${host('filed')} ${up.b.port}`);
    await ingress.remove(`filed-${tag}`);
    expect((await readFile(path.join(haproxy.dir, 'ingress.map'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(ROUTES);
  });

  it('a release that dies inside its settle window: every request is answered by the warm previous one behind it', async () => {
    const dead = await upstream('dead');
    const deadPort = dead.port;
    await dead.close();
    await ingress.put({ appId: `window-${tag}`, host: host('window'), upstreamPort: deadPort }, up.a.port);
    expect(await haproxy.command(`get map ${haproxy.dir}/ingress.map ${host('window')}`)).toMatch(/value="w\d+"/);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(haproxy.port, host('window'), agent).catch((e: Error) => ({ status: 0, body: e.message }))));
    agent.destroy();
    expect(answers.filter((a) => a.body !== 'up a\n')).toEqual([]);
    // The window ends on the previous release (what settle-windows.ts does when the new one died): a port again.
    await ingress.put({ appId: `window-${tag}`, host: host('window'), upstreamPort: up.a.port });
    expect(await haproxy.command(`get map ${haproxy.dir}/ingress.map ${host('window')}`)).toMatch(new RegExp(`value="${up.a.port}"`));
    expect((await get(haproxy.port, host('window'))).body).toBe('up a\n');
  });

  it("a host the map does not hold goes to Caddy behind HAProxy: today's 404", async () => {
    const answer = await get(haproxy.port, host('nothing-here'));
    expect(answer).toEqual({ status: 404, body: 'No app is served at this address.\n' });
  });

  it('the watchdog puts back what HAProxy lost: an entry removed behind its back, a settle window after a restart', async () => {
    // With custom domains' entries known (none here) the watchdog compares the map's entry count at each tick.
    await ingress.setDomainEntries(new Map());
    ingress.watch(200);
    await haproxy.command(`del map ${haproxy.dir}/ingress.map ${host('steady')}`);
    expect(await eventually(async () => (await get(haproxy.port, host('steady'))).body === 'up a\n')).toBe(true);

    const dead = await upstream('dead');
    const deadPort = dead.port;
    await dead.close();
    await ingress.put({ appId: `window2-${tag}`, host: host('window2'), upstreamPort: deadPort }, up.b.port);
    await haproxy.restart();
    // Restarted from the map file (every route there, the window's host on its new release), then the window set again.
    expect((await get(haproxy.port, host('app1'))).body).toBe('up b\n');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const windowBack = await eventually(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => get(haproxy.port, host('window2'), agent).catch(() => ({ status: 0, body: '' }))));
      return answers.every((a) => a.body === 'up b\n');
    });
    agent.destroy();
    expect(windowBack).toBe(true);
    ingress.stop();
  });
});
