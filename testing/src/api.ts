// Starts the whole API on a free port against a private database and a private Redis prefix, the way main.ts
// builds it, for the integration tests of this app. Every response is checked against the OpenAPI document.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@slipway/config';
import type { AgentGateway, BuildsGateway, Clock, FilesGateway, GithubAppSettings, LoginThrottleLimits, PlanEntry } from '@slipway/core';
import { createDb, createSqlPool, type Db, type ReadCache } from '@slipway/db';
import { databaseCheck, redisCheck, type ContractViolation, type ServiceDeps, type Services } from '@slipway/api';
import Redis from 'ioredis';
import { ApiClient } from './api-client';
import { createTestDatabase, type TestDatabase } from './database';
import { insertNode, RecordingJobQueue } from './factories';
import { assertNoViolations, serveApi, TEST_PUBLIC_ORIGIN } from './serve';
import { TEST_SERVICES } from './services';

export { TEST_PUBLIC_ORIGIN };
export const TEST_SESSION_KEY = 'test-session-key-of-at-least-32-characters';
/** Seals the secret variables of test APIs (createServices takes a key; it never makes one up). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);
export const TEST_APPS_DOMAIN: ServiceDeps['appsDomain'] = { domain: 'apps.localhost', scheme: 'http' };

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
  /** The reads from memory (default: one over the test database, as main.ts has; null: none). */
  reads?: ReadCache | null;
  loginLimits?: LoginThrottleLimits;
  clock?: Clock;
  planEntries?: PlanEntry[];
  /** The online node new workspaces land on (default: a node row no agent answers for). */
  node?: (db: Db) => Promise<{ id: string; name: string }>;
  /** A real agent's gateways (default: none, and the operations that need one answer 503 node_unavailable). */
  agents?: AgentGateway;
  files?: FilesGateway;
  builds?: BuildsGateway;
  /** The GitHub App (issue 16), e.g. `githubAppOf(double)` of @slipway/testing/github; default: not configured (503). */
  github?: GithubAppSettings;
  /** The agents' Databases service (issue 12; default none: creating a database answers 503 node_unavailable). */
  databases?: ServiceDeps['databases'];
  /** The agents' Backups service (issue 13): backup downloads and deletions. */
  backups?: ServiceDeps['backups'];
  /** The agents' Domains service (issue 14; default none: verifying a domain answers 503 node_unavailable). */
  domains?: ServiceDeps['domains'];
  /** Where the databases' CA lives (default none: GET /v1/database-ca.pem answers 503). */
  dataDir?: string;
  /** 'self': the API's own address is its public origin, so a browser on the console it serves may write (issue 28). */
  publicOrigin?: 'self';
}

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const database = await createTestDatabase();
  const db = createDb(database.url);
  const sql = createSqlPool(database.url);
  const redis = new Redis(TEST_SERVICES.redisUrl);
  const redisPrefix = `slipway-test-${randomBytes(6).toString('hex')}`;
  const logger = createLogger('api-test', 'silent');
  const jobs = new RecordingJobQueue();
  const deps = { db, sql, redis, jobs, logger, sessionKey: TEST_SESSION_KEY, redisPrefix, encryptionKey: TEST_ENCRYPTION_KEY, appsDomain: TEST_APPS_DOMAIN };
  const { publicOrigin: origin, ...serviceOptions } = options;
  const { services, base, publicOrigin, violations, close } = await serveApi({ ...deps, ...serviceOptions }, 'api-test', [databaseCheck(db), redisCheck(redis)], { publicOrigin: origin });
  const node = options.node ? await options.node(db) : await insertNode(db, { cpuMillis: 64_000, memoryMb: 262_144 });
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
    client: () => new ApiClient(base, { origin: publicOrigin }),
    async close() {
      await close();
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length) await redis.del(...keys);
      await Promise.allSettled([db.$disconnect(), sql.end(), redis.quit()]);
      await database.drop();
      assertNoViolations(violations);
    },
  };
}
