import Redis from 'ioredis';

/**
 * The Redis connection BullMQ wants: no per-command retry limit (workers block on Redis). One for queues
 * and producers; each Worker duplicates it for its blocking connection.
 */
export function createRedisConnection(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: options.lazyConnect ?? false });
}

export type { Redis };
