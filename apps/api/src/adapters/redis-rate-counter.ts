import type { RateCounter } from '@slipway/core';
import type Redis from 'ioredis';

/** RateCounter over Redis: INCR + EXPIRE NX per key, so a window opens at the first hit and closes by itself. */
export class RedisRateCounter implements RateCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async peek(keys: string[]): Promise<{ count: number; ttlSeconds: number }[]> {
    const pipeline = this.redis.pipeline();
    for (const k of keys) pipeline.get(this.key(k)).ttl(this.key(k));
    const results = (await pipeline.exec()) ?? [];
    return keys.map((_, i) => {
      const [getErr, count] = results[2 * i] ?? [];
      const [ttlErr, ttl] = results[2 * i + 1] ?? [];
      if (getErr || ttlErr) throw getErr ?? ttlErr;
      return { count: Number(count ?? 0), ttlSeconds: Math.max(0, Number(ttl ?? 0)) };
    });
  }

  async hit(keys: string[], windowSeconds: number): Promise<void> {
    const multi = this.redis.multi();
    for (const k of keys) multi.incr(this.key(k)).expire(this.key(k), windowSeconds, 'NX');
    const results = (await multi.exec()) ?? [];
    const failed = results.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  private key(k: string): string {
    return `${this.prefix}:throttle:${k}`;
  }
}
