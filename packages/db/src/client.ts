import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';
import type { PoolOptions } from './sql-pool';

export type Db = PrismaClient;

/**
 * The only place that constructs the generated client; it talks to PostgreSQL through node-postgres. Broken
 * connections (idle ones, and a transaction's when PostgreSQL restarts) go to `onError` instead of ending the
 * process; the pool opens new ones on the next query.
 */
export function createDb(url: string, options: PoolOptions = {}): Db {
  const onError = (err: Error) => options.onError?.(err);
  const adapter = new PrismaPg({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 5_000 }, { onPoolError: onError, onConnectionError: onError });
  return new PrismaClient({ adapter });
}
