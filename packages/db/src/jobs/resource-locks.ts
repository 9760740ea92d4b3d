import { AppError, type LockKind, type ResourceLocks } from '@slipway/core';
import type { Pool, PoolClient } from 'pg';

/**
 * The first key of each kind's locks: an app and a database whose ids hash alike never wait for each other. Apps keep
 * the space they always had (a worker of the previous version and one of this version still exclude each other).
 */
const LOCK_SPACES: Record<LockKind, number> = { app: 0x5a11, database: 0x5a12, workspace: 0x5a13 };

/**
 * Per-resource locks as PostgreSQL session advisory locks (`pg_try_advisory_lock(space of the kind, hashtext(id))`), each held by
 * a connection of its own pool for as long as the work runs. A worker that dies loses its connection and PostgreSQL
 * releases its locks at once, so the lock survives worker restarts without a lease to expire. Two resources of a kind
 * whose ids hash alike only wait for each other.
 */
export class PgResourceLocks implements ResourceLocks {
  /** `waitMs`: how long `hold` waits before failing with a transient error (its job is retried). */
  constructor(
    private readonly pool: Pool,
    private readonly waitMs = 5 * 60_000,
  ) {}

  /**
   * Waits by trying again (every 50 ms, backing off to 500 ms) rather than in `pg_advisory_lock`: a waiting job holds
   * no connection, so connections are only ever held by the resources being worked on. Waiters are not served in order;
   * they need not be, since each reads the app's desired state when it runs.
   */
  async hold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<T> {
    const end = Date.now() + this.waitMs;
    for (let pause = 50; ; pause = Math.min(500, pause * 2)) {
      const held = await this.tryHold(kind, id, work);
      if (held) return held.value;
      if (Date.now() > end) throw new AppError('internal', `The ${kind} ${id} stayed busy for ${Math.round(this.waitMs / 1000)} s`);
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  async tryHold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<{ value: T } | null> {
    const space = LOCK_SPACES[kind];
    const client = await this.pool.connect();
    // A checked-out client whose connection drops (PostgreSQL restarted) emits 'error': without a listener that
    // would end the process. The lock is gone with the connection; the unlock below fails and the client is dropped.
    const dropped = (e: Error) => void e;
    client.on('error', dropped);
    const release = (e?: Error) => {
      client.off('error', dropped);
      client.release(e);
    };
    let got: boolean;
    try {
      got = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [space, id])).rows[0]!.got;
    } catch (e) {
      release(e as Error);
      throw e;
    }
    if (!got) {
      release();
      return null;
    }
    return { value: await this.holding(client, release, [space, id], work) };
  }

  /**
   * Every listed lock on one connection (a move of a workspace with many apps would otherwise hold one connection per
   * app and exhaust the pool): tries them all, and when one is taken lets go of those it got and tries again later.
   */
  async holdAll<T>(keys: readonly (readonly [LockKind, string])[], work: () => Promise<T>): Promise<T> {
    const end = Date.now() + this.waitMs;
    const params = keys.map(([kind, id]) => [LOCK_SPACES[kind], id] as const);
    for (let pause = 50; ; pause = Math.min(500, pause * 2)) {
      const client = await this.pool.connect();
      const dropped = (e: Error) => void e;
      client.on('error', dropped);
      const release = (e?: Error) => {
        client.off('error', dropped);
        client.release(e);
      };
      const got: (readonly [number, string])[] = [];
      const unlockAll = async () => {
        for (const key of got.splice(0)) await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [...key]);
      };
      let outcome: { value: T } | { error: unknown } | null = null;
      try {
        for (const key of params) {
          if (!(await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS got', [...key])).rows[0]!.got) break;
          got.push(key);
        }
        if (got.length === params.length) {
          try {
            outcome = { value: await work() };
          } catch (e) {
            outcome = { error: e };
          }
        }
        await unlockAll();
      } catch (e) {
        // A connection that failed mid-way is dropped (its locks go with its session).
        release(e as Error);
        throw e;
      }
      release();
      if (outcome && 'error' in outcome) throw outcome.error;
      if (outcome) return outcome.value;
      if (Date.now() > end) throw new AppError('internal', `A lock of ${keys.length} resources stayed busy for ${Math.round(this.waitMs / 1000)} s`);
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  private async holding<T>(client: PoolClient, release: (e?: Error) => void, key: [number, string], work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      // A connection whose unlock failed is closed rather than reused: closing it releases the lock.
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', key).then(
        () => release(),
        (e: Error) => release(e),
      );
    }
  }
}
