import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDb, createSqlPool } from '@slipway/db';
import { createTestDatabase, RecordingJobQueue, signUp, uniqueEmail } from '@slipway/testing';
import Redis from 'ioredis';
import pino from 'pino';
import { createApp } from './app';
import { apiRouter, createServices } from './services';
import { startTestApi, TEST_APPS_DOMAIN, TEST_ENCRYPTION_KEY, type TestApi } from '@slipway/testing/api';

describe('what every request gets (real PostgreSQL and Redis, through HTTP)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('carries X-Request-Id on answers and errors, echoing a sane one', async () => {
    const c = api.client();
    const echoed = await c.get('/v1/plans', { headers: { 'x-request-id': 'trace-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-42');
    const error = await c.get('/v1/auth/me');
    expect(error.status).toBe(401);
    expect(error.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const insane = await c.get('/v1/plans', { headers: { 'x-request-id': 'a b\tc' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers 413 payload_too_large above 1 MB of JSON', async () => {
    const c = api.client();
    await signUp(c);
    const res = await c.post('/v1/workspaces', { name: 'x', padding: 'p'.repeat(1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers 415 unsupported_media_type for a body that is not application/json', async () => {
    const c = api.client();
    await signUp(c);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await c.post('/v1/workspaces', undefined, { raw: 'name=x', headers: { 'content-type': type } });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
    const none = await c.post('/v1/auth/login', undefined, { raw: '{"email":"a@b.test","password":"x"}' });
    expect(none.status).toBe(415);
  });

  it('answers 400 invalid_json for a body that does not parse, and validation_failed for a missing one', async () => {
    const c = api.client();
    const bad = await c.post('/v1/auth/login', undefined, { raw: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 'invalid_json', message: 'The request body is not valid JSON' } });
    const empty = await c.post('/v1/auth/login');
    expect(empty.status).toBe(400);
    expect(empty.body.error).toEqual({ code: 'validation_failed', message: expect.any(String), details: [{ field: '', message: 'must be object' }] });
    const charset = await c.post('/v1/auth/login', undefined, {
      raw: JSON.stringify({ email: uniqueEmail(), password: 'whatever12' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(401);
  });

  it('answers 404 not_found with the error shape for unknown paths and methods', async () => {
    const res = await api.client().request('PUT', '/v1/workspaces');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'No such endpoint' } });
  });

  it('serves the OpenAPI document and a reference page built from local files only', async () => {
    const doc = await api.client().get('/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/workspaces/{workspaceId}/plan', '/v1/auth/login']));

    const page = await api.client().get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset).toMatch(/^\//); // same server, never a CDN
      const res = await fetch(new URL(asset, api.base));
      expect(`${asset} ${res.status}`).toBe(`${asset} 200`);
    }
    const script = await (await fetch(new URL('/docs/reference.js', api.base))).text();
    expect(script).toContain("url: '/v1/openapi.json'");
    expect(script).toContain('validatorUrl: null');
    expect((await fetch(new URL('/docs/index.html', api.base))).status).toBe(404); // Swagger UI's petstore page is not served
  });
});

describe('failures inside the server', () => {
  it('a database nobody listens on: 503 service_unavailable with Retry-After, without stack, SQL, or server paths, logged with the request id', async () => {
    // Every query fails inside Prisma or pg with a connection error: a dependency down, not a defect (issue 11).
    const db = createDb('postgresql://nobody:secret@127.0.0.1:1/nowhere');
    const sql = createSqlPool('postgresql://nobody:secret@127.0.0.1:1/nowhere');
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const lines: { msg: string; reqId?: string; err?: { message: string } }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const services = createServices({ db, sql, redis, jobs: new RecordingJobQueue(), logger, sessionKey: 'k'.repeat(32), redisPrefix: 'x', encryptionKey: TEST_ENCRYPTION_KEY, appsDomain: TEST_APPS_DOMAIN });
    const app = createApp({ logger, readiness: [], v1: [apiRouter(services, { publicOrigin: 'http://x', secureCookies: false, bodyLimitBytes: 1 << 20 })] });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const res of [
        await fetch(`${base}/v1/plans`),
        await fetch(`${base}/v1/auth/me`, { headers: { cookie: 'svc_session=abc' } }),
        await fetch(`${base}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@b.test', password: 'x' }) }),
      ]) {
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        const text = await res.text();
        expect(JSON.parse(text)).toEqual({ error: { code: 'service_unavailable', message: expect.stringMatching(/not reachable right now/) } });
        expect(text).not.toMatch(/ECONNREFUSED|SELECT|prisma|\/work\/|at .*\.ts|nobody|secret/i);
        const logged = lines.filter((l) => l.reqId === res.headers.get('x-request-id'));
        expect(logged).toEqual([expect.objectContaining({ msg: 'request failed: a dependency is unavailable' })]);
      }
    } finally {
      server.close();
      redis.disconnect();
      await db.$disconnect();
      await sql.end();
    }
  });
});

/** Lines of `text` holding every one of `marks`. */
const linesWith = (text: string, marks: string[]) => text.split('\n').filter((l) => marks.every((m) => l.includes(m))).length;

/** Polls `read()` every 5 ms until `count` of its lines hold every one of `marks` (or `ms` passed); how many do. */
async function waitForLines(read: () => string, marks: string[], count: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  while (linesWith(read(), marks) < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return linesWith(read(), marks);
}

describe('the API process', () => {
  it('starts on a fresh database, serves, and on SIGTERM lets requests in flight finish before exiting 0', async () => {
    const database = await createTestDatabase();
    // Node itself (not npx) so that SIGTERM reaches the API process.
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, 'main.ts')], {
      cwd: path.resolve(__dirname, '../../..'),
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        SLIPWAY_API_PORT: '0',
        SLIPWAY_LOG_LEVEL: 'debug',
        SLIPWAY_REDIS_PREFIX: `proc-${Date.now()}`,
        // Its own operator socket: on a machine where the platform is installed, that API holds the default one.
        SLIPWAY_OPERATOR_SOCKET: path.join(os.tmpdir(), `slipway-api-proc-${process.pid}-${Date.now()}.sock`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      await waitForLines(() => output, ['API listening'], 1, 60_000);
      const url = (JSON.parse(output.split('\n').find((l) => l.includes('API listening'))!) as { url: string }).url;
      expect((await fetch(`${url}/v1/plans`)).status).toBe(200);
      // Signups hash passwords with argon2id (four at a time on libuv's pool): 32 of them keep the server busy for
      // a few hundred ms. SIGTERM comes once the server has received them all; every one must still be answered.
      const inFlight = Array.from({ length: 32 }, () =>
        fetch(`${url}/v1/auth/signup`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: uniqueEmail(), password: 'long enough password', name: 'Drain' }),
        }).then((r) => r.status),
      );
      expect(await waitForLines(() => output, ['request received', '/v1/auth/signup'], 32, 30_000)).toBe(32);
      child.kill('SIGTERM');
      expect(await Promise.all(inFlight)).toEqual(Array(32).fill(201));
      expect(await exited).toBe(0);
      expect(output).toMatch(/shutting down/);
      // Some signups were still running when the signal came, and were answered after it.
      const afterSignal = output.slice(output.indexOf('shutting down'));
      expect(afterSignal).toMatch(/"path":"\/v1\/auth\/signup","status":201/);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      await database.drop();
    }
  }, 90_000);
});
