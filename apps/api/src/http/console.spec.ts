import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import express from 'express';
import { consoleRouter } from './console';

// The console's files as the API serves them (issue 28): precompressed, cached by kind, deep links to index.html,
// the API's own paths left alone.
describe('consoleRouter', () => {
  let dir: string;
  let server: Server;
  let base: string;
  const INDEX = '<!doctype html><title>Slipway</title><script type="module" src="/assets/index-abc123.js"></script>';
  const SCRIPT = 'console.log("the console");'.repeat(20);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'console-dist-'));
    await mkdir(path.join(dir, 'assets'));
    for (const [file, body] of [['index.html', INDEX], ['assets/index-abc123.js', SCRIPT]] as const) {
      await writeFile(path.join(dir, file), body);
      await writeFile(path.join(dir, `${file}.br`), brotliCompressSync(body));
      await writeFile(path.join(dir, `${file}.gz`), gzipSync(body));
    }
    const app = express();
    app.use('/v1', (_req, res) => void res.status(404).json({ error: { code: 'not_found', message: 'No such operation' } }));
    app.use(consoleRouter(dir)!);
    app.use((_req, res) => void res.status(404).json({ error: { code: 'not_found', message: 'Not found' } }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('is absent when the console was not built', () => {
    expect(consoleRouter(path.join(os.tmpdir(), 'no-console-here'))).toBeUndefined();
  });

  it('serves index.html at / and at any deep link, never cached, brotli when accepted', async () => {
    for (const p of ['/', '/w/0190/apps/0191/deployments', '/signin?next=%2F']) {
      const res = await fetch(`${base}${p}`, { headers: { 'accept-encoding': 'br, gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-encoding')).toBe('br');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('serves hashed assets for a year, gzip to a client without brotli', async () => {
    const res = await fetch(`${base}/assets/index-abc123.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await res.text()).toBe(SCRIPT);
  });

  it('leaves the API its paths, and a missing file is a 404, not the page', async () => {
    const api = await fetch(`${base}/v1/nothing`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/json/);
    const missing = await fetch(`${base}/assets/gone-123.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/json/);
    const post = await fetch(`${base}/anything`, { method: 'POST' });
    expect(post.status).toBe(404);
  });
});
