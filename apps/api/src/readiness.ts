import type { Db } from '@slipway/db';
import type Redis from 'ioredis';
import type { ReadinessCheck } from './health.routes';

export function databaseCheck(db: Db): ReadinessCheck {
  return { name: 'database', check: async () => void (await db.$queryRaw`SELECT 1`) };
}

export function redisCheck(redis: Redis): ReadinessCheck {
  return {
    name: 'redis',
    check: async () => {
      if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
    },
  };
}
