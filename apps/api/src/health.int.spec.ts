import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '@slipway/config';
import { createDb, type Db } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import Redis from 'ioredis';
import type { Server } from 'node:http';
import { createApp } from './app';
import { databaseCheck, redisCheck } from './readiness';

const run = promisify(execFile);

describe('health and readiness (real PostgreSQL and Redis)', () => {
  let database: TestDatabase;
  let db: Db;
  let redis: Redis;
  let deadRedis: Redis;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    redis = new Redis(TEST_SERVICES.redisUrl);
    // Nothing listens on port 1: this check must fail.
    deadRedis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const app = createApp({ logger: createLogger('test', 'silent'), readiness: [databaseCheck(db), redisCheck(redis)], v1: [], bootId: 'boot-id-of-this-start' });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.close();
    deadRedis.disconnect();
    await Promise.all([db.$disconnect(), redis.quit()]);
    await database.drop();
  });

  it('answers /healthz and /readyz when PostgreSQL and Redis answer, with the id of this process start', async () => {
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, bootId: 'boot-id-of-this-start' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, bootId: 'boot-id-of-this-start', checks: [{ name: 'database', ok: true }, { name: 'redis', ok: true }] });
  });

  it('answers 503 naming the failing dependency', async () => {
    const app = createApp({ logger: createLogger('test', 'silent'), readiness: [databaseCheck(db), redisCheck(deadRedis)], v1: [] });
    const other = app.listen(0, '127.0.0.1');
    await new Promise((r) => other.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(other.address() as AddressInfo).port}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { checks: { name: string; ok: boolean }[] };
      expect(body.checks.find((c) => c.name === 'redis')?.ok).toBe(false);
      expect(body.checks.find((c) => c.name === 'database')?.ok).toBe(true);
    } finally {
      other.close();
    }
  });

  it('echoes X-Request-Id, makes one otherwise, and answers unknown paths with the error shape', async () => {
    const echoed = await fetch(`${base}/v1/nothing-here`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    expect(echoed.status).toBe(404);
    expect(await echoed.json()).toEqual({ error: { code: 'not_found', message: 'No such endpoint' } });
    const made = await fetch(`${base}/healthz`);
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('API process start-up', () => {
  const main = path.resolve(__dirname, 'main.ts');

  it('refuses to start with a bad setting and names it', async () => {
    const failure = await run('npx', ['tsx', main], {
      env: { ...process.env, DATABASE_URL: 'mysql://nope', SLIPWAY_API_PORT: 'x' },
    }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(String(failure.stderr)).toMatch(/DATABASE_URL is invalid/);
    expect(String(failure.stderr)).toMatch(/SLIPWAY_API_PORT must be a whole number/);
  });

  it('refuses placeholder secrets in production', async () => {
    const failure = await run('npx', ['tsx', main], {
      env: { ...process.env, SLIPWAY_MODE: 'production', DATABASE_URL: 'postgresql://x@127.0.0.1/x', SLIPWAY_SESSION_SECRET: 'changeme' },
    }).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(String(failure.stderr)).toMatch(/SLIPWAY_SESSION_SECRET/);
    expect(String(failure.stderr)).toMatch(/SLIPWAY_ENCRYPTION_KEY is required/);
  });
});
