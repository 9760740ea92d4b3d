import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configPath, findLink, readConfig, retryingFetch, writeConfig, writeLink } from './context';

describe('retryingFetch', () => {
  let server: Server;
  let base: string;
  let calls: string[] = [];
  beforeAll(async () => {
    // The first request of each path has its connection reset; the next is answered.
    server = createServer((req, res) => {
      calls.push(`${req.method} ${req.url}`);
      if (calls.filter((c) => c === `${req.method} ${req.url}`).length === 1) return req.socket.destroy();
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => (calls = []));

  it('tries a GET or PUT again when the connection was reset', async () => {
    expect(await (await retryingFetch(new Request(`${base}/a`))).text()).toBe('ok');
    expect(await (await retryingFetch(new Request(`${base}/b`, { method: 'PUT', body: 'x' }))).text()).toBe('ok');
    expect(calls).toEqual(['GET /a', 'GET /a', 'PUT /b', 'PUT /b']);
  });

  it('never sends a POST twice', async () => {
    await expect(retryingFetch(new Request(`${base}/c`, { method: 'POST', body: 'x' }))).rejects.toThrow();
    expect(calls).toEqual(['POST /c']);
  });
});

describe('the config file and the link', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'slipway-config-'));
  const saved = process.env.XDG_CONFIG_HOME;
  beforeAll(() => (process.env.XDG_CONFIG_HOME = path.join(dir, 'xdg')));
  afterAll(() => {
    process.env.XDG_CONFIG_HOME = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written under XDG_CONFIG_HOME with mode 0600', () => {
    writeConfig({ url: 'https://slipway.example.com', token: 'svc_x' });
    expect(configPath()).toBe(path.join(dir, 'xdg/slipway/config.json'));
    expect(statSync(configPath()).mode & 0o777).toBe(0o600);
    expect(readConfig()).toEqual({ url: 'https://slipway.example.com', token: 'svc_x' });
  });

  it('finds .slipway.json from a subfolder', () => {
    writeLink(dir, { workspace: 'w', app: 'a' });
    expect(findLink(path.join(dir, 'xdg/slipway'))).toEqual({ file: path.join(dir, '.slipway.json'), link: { workspace: 'w', app: 'a' } });
  });
});
