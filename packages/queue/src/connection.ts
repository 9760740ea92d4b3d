import Redis from 'ioredis';

export interface RedisConnectionOptions {
  lazyConnect?: boolean;
  /**
   * `worker` (default): no per-command retry limit, as BullMQ's workers need (they block on Redis and wait for it
   * through a restart). `producer`: a command fails after two reconnection attempts instead of waiting, so a
   * request made while Redis is down is answered 503 at once rather than hanging.
   */
  role?: 'worker' | 'producer';
  /** Connection errors (Redis restarting): ioredis reconnects by itself; this only reports them. */
  onError?: (err: Error) => void;
}

/**
 * The Redis connection BullMQ wants. One for queues and producers; each Worker duplicates it for its blocking
 * connection. Reconnects with backoff (50 ms per attempt, at most 2 s) for as long as Redis is away.
 */
export function createRedisConnection(url: string, options: RedisConnectionOptions = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: options.role === 'producer' ? 2 : null,
    enableReadyCheck: true,
    lazyConnect: options.lazyConnect ?? false,
    retryStrategy: (times) => Math.min(times * 50, 2_000),
  });
  // Without a listener ioredis prints every failed reconnection as an unhandled error event.
  redis.on('error', (err: Error) => options.onError?.(err));
  return redis;
}

/** Whether an error means "Redis is not reachable right now" (restarting, gone), not a bad command. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(e.code)) return true;
  return typeof e.message === 'string' && /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)|LOADING Redis is loading/.test(e.message);
}

export type { Redis };
