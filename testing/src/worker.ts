// Helpers for the worker's, CLI's and benchmark's integration tests: a control-plane config over a
// scratch database, a Redis prefix of their own, and a node row for a test agent.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '@slipway/config';
import type { Db } from '@slipway/db';
import { fingerprint } from '@slipway/pki';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const uniquePrefix = (name: string): string => `slipway-test-${name}-${randomBytes(4).toString('hex')}`;

export function testEnv(o: { databaseUrl: string; redisUrl: string; prefix: string; dataDir: string; extra?: Record<string, string> }): Record<string, string> {
  return {
    SLIPWAY_MODE: 'test',
    SLIPWAY_LOG_LEVEL: 'silent',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    SLIPWAY_REDIS_PREFIX: o.prefix,
    SLIPWAY_DATA_DIR: o.dataDir,
    SLIPWAY_WORKER_LOCK_MS: '2000',
    SLIPWAY_NODE_HEALTH_INTERVAL_MS: '1000',
    SLIPWAY_RECONCILE_INTERVAL_MS: '600000',
    ...o.extra,
  };
}

export const testConfig = (env: Record<string, string>): Readonly<Config> => loadConfig('control', env);

/** Records a test agent (started with @slipway/agent's startTestAgent) as an enrolled, online node. */
export async function insertNode(
  db: Db,
  agent: { target: { name: string | null; grpcAddress: string }; dataDir: string },
  status = 'online',
  capacity: { cpuMillis: number; memoryMb: number } = { cpuMillis: 2000, memoryMb: 4096 },
) {
  const certPem = await readFile(path.join(agent.dataDir, 'tls', 'agent.crt'), 'utf8');
  return db.node.create({
    data: {
      name: agent.target.name!,
      grpcAddress: agent.target.grpcAddress,
      publicIpv4: ['127.0.0.1'],
      ...capacity,
      version: 'test',
      certFingerprint: fingerprint(certPem),
      certNotAfter: new Date(Date.now() + 86_400_000),
      status,
      lastSeenAt: new Date(),
    },
  });
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, ms = 30_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Reads every 50 ms until `done` holds of what was read (at most `ms`); the value that satisfied it. */
export async function waitUntil<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Deletes every Redis key of a test's prefix (its queues, jobs, schedulers). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
