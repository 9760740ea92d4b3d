import type { Db, SqlPool } from '@slipway/db';
import type Redis from 'ioredis';
import type { ReadinessCheck } from './health.routes';

/** Both ways the API reaches PostgreSQL answer: Prisma's pool and the plain pool of the per-request lookups. */
export function databaseCheck(db: Db, sql?: SqlPool): ReadinessCheck {
  return {
    name: 'database',
    check: async () => {
      await Promise.all([db.$queryRaw`SELECT 1`, sql?.query('SELECT 1')]);
    },
  };
}

export function redisCheck(redis: Redis): ReadinessCheck {
  return {
    name: 'redis',
    check: async () => {
      if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
    },
  };
}
