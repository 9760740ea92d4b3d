// The API in this process over a scratch database, as apps/api/src/main.ts builds it (createServices + apiRouter +
// createApp, logger at warn), with a recording job queue and one node row: the harness of the request benchmarks
// (bench/api, bench/reads). The database and the Redis keys are dropped at the end.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import Redis from 'ioredis';
import { createLogger } from '@slipway/config';
import { createDb, createSqlPool, migrate, ReadCache, type Db, type SqlPool } from '@slipway/db';
import { adminQuery, databaseUrl, insertNode, RecordingJobQueue, TEST_SERVICES } from '@slipway/testing';
import { TEST_APPS_DOMAIN, TEST_ENCRYPTION_KEY } from '@slipway/testing/api';
import { createApp } from '../../apps/api/src/app';
import { apiRouter, createServices } from '../../apps/api/src/services';

export const BENCH_ORIGIN = 'http://bench.slipway.test';

export interface ScratchApi {
  /** The API as production serves it: reads from memory (decision 0041). */
  base: string;
  /** The same API over the same database without them: every read goes to PostgreSQL (before issue 34). */
  uncachedBase: string;
  db: Db;
  sql: SqlPool;
  /** Serves another app (a bare handler) on 127.0.0.1, closed with the rest. */
  listen(app: express.Express): Promise<string>;
}

/** Runs `use` against the API on a scratch database, then closes and drops everything, whatever happened. */
export async function withScratchApi(use: (api: ScratchApi) => Promise<void>): Promise<void> {
  const dbName = `slipway_bench_${Date.now()}_${randomBytes(3).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${dbName}`);
  const url = databaseUrl(dbName);
  const db = createDb(url);
  const sql = createSqlPool(url);
  const redis = new Redis(TEST_SERVICES.redisUrl);
  const redisPrefix = `bench-${randomBytes(4).toString('hex')}`;
  const servers: Server[] = [];
  const reads = new ReadCache(sql);
  const listen = async (app: express.Express) => {
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  try {
    await migrate(url);
    await reads.start();
    const logger = createLogger('bench', 'warn');
    const deps = { db, sql, redis, jobs: new RecordingJobQueue(), logger, sessionKey: randomBytes(32).toString('hex'), redisPrefix, encryptionKey: TEST_ENCRYPTION_KEY, appsDomain: TEST_APPS_DOMAIN };
    const serve = async (cache: ReadCache | null) => {
      const services = createServices({ ...deps, reads: cache });
      await services.plans.seed();
      return listen(createApp({ logger, readiness: [], v1: [apiRouter(services, { publicOrigin: BENCH_ORIGIN, secureCookies: false, bodyLimitBytes: 1 << 20 })] }));
    };
    const base = await serve(reads);
    const uncachedBase = await serve(null);
    await insertNode(db);
    await use({ base, uncachedBase, db, sql, listen });
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    const keys = await redis.keys(`${redisPrefix}:*`);
    if (keys.length) await redis.del(...keys);
    await Promise.allSettled([reads.close(), db.$disconnect(), sql.end(), redis.quit()]);
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}
