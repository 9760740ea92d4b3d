import { AppError, type AppLocks } from '@slipway/core';
import type { Pool, PoolClient } from 'pg';

/** The first key of every app lock: advisory locks of other kinds take other first keys. */
const APP_LOCK_SPACE = 0x5a11;

/**
 * Per-app locks as PostgreSQL session advisory locks (`pg_advisory_lock(space, hashtext(appId))`), each held by a
 * connection of its own pool for as long as the work runs. A worker that dies loses its connection and PostgreSQL
 * releases its locks at once, so the lock survives worker restarts without a lease to expire. Two apps whose ids
 * hash alike only wait for each other.
 */
export class PgAppLocks implements AppLocks {
  /** `waitMs`: how long `withApp` waits before failing with a transient error (its job is retried). */
  constructor(
    private readonly pool: Pool,
    private readonly waitMs = 5 * 60_000,
  ) {}

  async withApp<T>(appId: string, work: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(`SELECT set_config('lock_timeout', $1, false)`, [`${this.waitMs}ms`]);
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [APP_LOCK_SPACE, appId]);
    } catch (e) {
      client.release(e as Error);
      if ((e as { code?: string }).code === '55P03') throw new AppError('internal', `The app ${appId} stayed busy for ${Math.round(this.waitMs / 1000)} s`);
      throw e;
    }
    return this.holding(client, appId, work);
  }

  async tryWithApp<T>(appId: string, work: () => Promise<T>): Promise<{ value: T } | null> {
    const client = await this.pool.connect();
    let got: boolean;
    try {
      got = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [APP_LOCK_SPACE, appId])).rows[0]!.got;
    } catch (e) {
      client.release(e as Error);
      throw e;
    }
    if (!got) {
      client.release();
      return null;
    }
    return { value: await this.holding(client, appId, work) };
  }

  private async holding<T>(client: PoolClient, appId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      // A connection whose unlock failed is closed rather than reused: closing it releases the lock.
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [APP_LOCK_SPACE, appId]).then(
        () => client.release(),
        (e: Error) => client.release(e),
      );
    }
  }
}
