// Starts the whole API on a free port against a private database and a private Redis prefix, the way main.ts
// builds it, for the integration tests of this app. Every response is checked against the OpenAPI document.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createLogger } from '@slipway/config';
import type { AgentGateway, BuildsGateway, Clock, FilesGateway, LoginThrottleLimits, PlanEntry } from '@slipway/core';
import { createDb, createSqlPool, type Db } from '@slipway/db';
import { ApiClient, createTestDatabase, insertNode, RecordingJobQueue, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import Redis from 'ioredis';
import { createApp } from '../app';
import type { ContractViolation } from '../http/operations';
import { databaseCheck, redisCheck } from '../readiness';
import { apiRouter, createServices, type Services } from '../services';

/** The origin the test API treats as its public one; ApiClient sends it as Origin. */
export const TEST_PUBLIC_ORIGIN = 'http://api.slipway.test';
export const TEST_SESSION_KEY = 'test-session-key-of-at-least-32-characters';

export interface TestApi {
  base: string;
  database: TestDatabase;
  db: Db;
  redis: Redis;
  redisPrefix: string;
  services: Services;
  jobs: RecordingJobQueue;
  /** The online node new workspaces land on. */
  node: { id: string; name: string };
  violations: ContractViolation[];
  /** A fresh client (own cookie jar) that sends the public origin. */
  client(): ApiClient;
  /** Stops the server, drops the database and the Redis keys; fails when a response broke the contract. */
  close(): Promise<void>;
}

export interface TestApiOptions {
  loginLimits?: LoginThrottleLimits;
  clock?: Clock;
  planEntries?: PlanEntry[];
  /** The online node new workspaces land on (default: a node row no agent answers for). */
  node?: (db: Db) => Promise<{ id: string; name: string }>;
  /** A real agent's gateways (default: none, and the operations that need one answer 503 node_unavailable). */
  agents?: AgentGateway;
  files?: FilesGateway;
  builds?: BuildsGateway;
}

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const database = await createTestDatabase();
  const db = createDb(database.url);
  const sql = createSqlPool(database.url);
  const redis = new Redis(TEST_SERVICES.redisUrl);
  const redisPrefix = `slipway-test-${randomBytes(6).toString('hex')}`;
  const logger = createLogger('api-test', 'silent');
  const jobs = new RecordingJobQueue();
  const services = createServices({
    db,
    sql,
    redis,
    jobs,
    logger,
    sessionKey: TEST_SESSION_KEY,
    redisPrefix,
    clock: options.clock,
    loginLimits: options.loginLimits,
    planEntries: options.planEntries,
    agents: options.agents,
    files: options.files,
    builds: options.builds,
  });
  await services.plans.seed();
  const node = options.node ? await options.node(db) : await insertNode(db);
  const violations: ContractViolation[] = [];
  const app = createApp({
    logger,
    readiness: [databaseCheck(db), redisCheck(redis)],
    v1: [
      apiRouter(services, {
        publicOrigin: TEST_PUBLIC_ORIGIN,
        secureCookies: false,
        bodyLimitBytes: 1024 * 1024,
        onContractViolation: (v) => violations.push(v),
      }),
    ],
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    database,
    db,
    redis,
    redisPrefix,
    services,
    jobs,
    node,
    violations,
    client: () => new ApiClient(base, { origin: TEST_PUBLIC_ORIGIN }),
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length) await redis.del(...keys);
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
      await database.drop();
      if (violations.length) {
        throw new Error(`Responses that break the OpenAPI document:\n${JSON.stringify(violations, null, 2)}`);
      }
    },
  };
}
