// HaproxyMap against a double of HAProxy's runtime socket (one command per connection, as HAProxy's non-interactive
// mode): what it sends, how it reads the answers, and that no host name that is not a DNS name reaches a command.
// The real HAProxy: haproxy.int.spec.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@slipway/core';
import { CaddyIngress } from './caddy.ingress';
import { HaproxyError, HaproxyMap } from './haproxy';

describe('HaproxyMap (a double of the runtime socket)', () => {
  let dir: string;
  let server: net.Server;
  const received: string[] = [];
  const map = new Map<string, string>();
  let pid = 100;

  const answer = (line: string): string => {
    const [verb, noun, file, key, value] = line.split(' ');
    if (verb === 'show' && noun === 'info') return `Name: HAProxy\nPid: ${pid}\n`;
    if (verb === 'show' && noun === 'map' && !file) return `# id (file) description\n0 (${path.join(dir, 'ingress.map')}) pattern loaded from file '…' used by map at file '…' line 40. curr_ver=0 next_ver=0 entry_cnt=${map.size}\n`;
    if (verb === 'show' && noun === 'map') return [...map].map(([k, v], i) => `0x${i.toString(16)} ${k} ${v}`).join('\n') + '\n';
    if (verb === 'set' && noun === 'map' && file) return map.has(key!) ? (map.set(key!, value!), '\n') : 'entry not found.\n';
    if (verb === 'add' && noun === 'map') return key!.startsWith('refused.') ? 'Out of memory error.\n' : (map.set(key!, value!), '\n');
    if (verb === 'del' && noun === 'map') return map.delete(key!) ? '\n' : 'entry not found.\n';
    if (verb === 'set' && noun === 'server') return line.includes(' addr ') ? "no need to change the addr, port changed from '9' to '1' by 'stats socket command'\n" : '\n';
    return 'Unknown command.\n';
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-haproxy-unit-'));
    server = net.createServer((c) => {
      let text = '';
      c.on('data', (d: Buffer) => {
        text += d.toString();
        if (!text.endsWith('\n')) return;
        const line = text.trim();
        received.push(line);
        c.end(answer(line));
      });
    });
    await new Promise<void>((r) => server.listen(path.join(dir, 'admin.sock'), r));
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    received.length = 0;
    map.clear();
  });

  it('sets an entry, adding it when HAProxy has none', async () => {
    const m = new HaproxyMap(dir);
    await m.set('a.apps.example.com', '8001');
    await m.set('a.apps.example.com', 'w3');
    expect(received).toEqual([
      `set map ${m.mapFile} a.apps.example.com 8001`,
      `add map ${m.mapFile} a.apps.example.com 8001`,
      `set map ${m.mapFile} a.apps.example.com w3`,
    ]);
    expect(await m.entries()).toEqual(new Map([['a.apps.example.com', 'w3']]));
  });

  it('removes an entry; one already gone is fine', async () => {
    const m = new HaproxyMap(dir);
    map.set('b.apps.example.com', '8002');
    await m.del('b.apps.example.com');
    await m.del('b.apps.example.com');
    expect(map.size).toBe(0);
  });

  it.each(['a.example.com 1\nclear map x', 'a;show info', 'UPPER.example.com', 'a b', '', 'a..b', '-a.example.com', `${'x'.repeat(254)}`])('refuses %j before any command is sent', async (host) => {
    const m = new HaproxyMap(dir);
    await expect(m.set(host, '1')).rejects.toThrow(HaproxyError);
    await expect(m.del(host)).rejects.toThrow(/is not a host name/);
    expect(received).toEqual([]);
  });

  it("knows when HAProxy's worker changed (a restart or reload forgets the window backends)", async () => {
    const m = new HaproxyMap(dir);
    expect(await m.workerChanged()).toBe(false);
    expect(await m.workerChanged()).toBe(false);
    pid++;
    expect(await m.workerChanged()).toBe(true);
    expect(await m.workerChanged()).toBe(false);
  });

  it('opens a window backend: both servers addressed, in service and up', async () => {
    const m = new HaproxyMap(dir);
    await m.openWindow(2, 8001, 8000);
    expect(received).toEqual([
      'set server w2/new addr 127.0.0.1 port 8001',
      'set server w2/prev addr 127.0.0.1 port 8000',
      'set server w2/new state ready',
      'set server w2/prev state ready',
      'set server w2/new health up',
      'set server w2/prev health up',
    ]);
  });

  it('writes the map file HAProxy loads at start, one entry a line', async () => {
    const m = new HaproxyMap(dir);
    await m.save([
      ['a.apps.example.com', '8001'],
      ['b.apps.example.com', '8002'],
    ]);
    expect(await readFile(m.mapFile, 'utf8')).toBe('a.apps.example.com 8001\nb.apps.example.com 8002\n');
  });

  it("the ingress watchdog reads the whole map after a sync, a restart, a failed change or a lost entry; else HAProxy's worker and entry count", async () => {
    // Caddy's admin API, as HAProxy's design leaves it: no app route of its own.
    const caddy = http.createServer((req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]'));
    await new Promise<void>((r) => caddy.listen(0, '127.0.0.1', r));
    const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
    const adminUrl = `http://127.0.0.1:${(caddy.address() as net.AddressInfo).port}`;
    const ingress = new CaddyIngress(adminUrl, path.join(dir, 'routes.json'), quiet, { haproxy: new HaproxyMap(dir), mapCheckMs: 60_000 });
    const route = { appId: 'a', host: 'a.apps.example.com', upstreamPort: 8001 };
    const shows = () => received.filter((l) => l.startsWith('show map /')).length;
    const infos = () => received.filter((l) => l === 'show info').length;
    const ticks = async (n: number) => {
      const from = infos();
      while (infos() < from + n) await new Promise((r) => setTimeout(r, 5));
    };
    try {
      await ingress.setDomainEntries(new Map([['www.example.org', 'a.apps.example.com']]));
      await ingress.sync([route]);
      expect(shows()).toBe(1);
      expect(map.get('a.apps.example.com')).toBe('8001');
      ingress.watch(10);
      await ticks(3);
      // The sync compared just now: the ticks ask for HAProxy's worker and the map's entry count only.
      expect(shows()).toBe(1);
      expect(received.filter((l) => l === 'show map').length).toBeGreaterThanOrEqual(3);
      // An entry lost behind the agent's back: the count says so, the next tick compares and puts it back.
      map.delete('d:www.example.org');
      await ticks(2);
      expect(shows()).toBe(2);
      expect(map.get('d:www.example.org')).toBe('a.apps.example.com');
      // One changed in place keeps the count: left until the next full comparison (mapCheckMs) or, here, a restart.
      map.set('a.apps.example.com', '9999');
      await ticks(3);
      expect(map.get('a.apps.example.com')).toBe('9999');
      pid++;
      await ticks(2);
      expect(shows()).toBe(3);
      expect(map.get('a.apps.example.com')).toBe('8001');
      // A change HAProxy refused half-way: the next tick compares (and tries again).
      await expect(ingress.put({ appId: 'b', host: 'refused.apps.example.com', upstreamPort: 8002 })).rejects.toThrow(/refused the route/);
      const before = shows();
      await ticks(2);
      expect(shows()).toBeGreaterThan(before);
    } finally {
      ingress.stop();
      await new Promise((r) => caddy.close(r));
    }
  });

  it('says so when the runtime API is not there', async () => {
    const m = new HaproxyMap(path.join(dir, 'nothing-here'));
    await expect(m.entries()).rejects.toThrow(/HAProxy's runtime API .* is not reachable/);
  });
});
