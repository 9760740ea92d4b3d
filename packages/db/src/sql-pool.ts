import { Pool } from 'pg';

export type SqlPool = Pool;

export interface PoolOptions {
  max?: number;
  /**
   * Called when an idle connection breaks (PostgreSQL restarted: 57P01, network gone). The pool drops that
   * connection and opens a new one on the next query; without a listener node-postgres' 'error' event would end
   * the process.
   */
  onError?: (err: Error) => void;
}

/**
 * A plain node-postgres pool for the few reads on every request's path (session, token and membership lookups).
 * They run as named prepared statements: measured here, Prisma's raw queries cost about three times the CPU of
 * the same query through pg, and the API serves every authenticated request with two of them.
 */
export function createSqlPool(url: string, options: PoolOptions = {}): SqlPool {
  // A query waits at most 5 s for a connection: while PostgreSQL is down, requests fail (503) instead of hanging.
  const pool = new Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 5_000 });
  pool.on('error', (err) => options.onError?.(err));
  return pool;
}
