// Composition root of the control plane: settings, database, Redis, routes; graceful shutdown.
import { once } from 'node:events';
import { ConfigError, createLogger, loadConfig } from '@slipway/config';
import { createDb, migrate } from '@slipway/db';
import Redis from 'ioredis';
import { createApp } from './app';
import { databaseCheck, redisCheck } from './readiness';

async function main() {
  const config = loadConfig('control');
  const logger = createLogger('api', config.log.level);
  const migrations = await migrate(config.database.url);
  if (migrations.applied.length) logger.info({ applied: migrations.applied }, 'migrations applied');

  const db = createDb(config.database.url);
  const redis = new Redis(config.redis.url, { maxRetriesPerRequest: null, lazyConnect: false });
  const app = createApp({ logger, readiness: [databaseCheck(db), redisCheck(redis)], v1: [] });
  const server = app.listen(config.api.port, config.api.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  logger.info({ url: `http://${config.api.host}:${port}` }, 'API listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close();
    server.closeIdleConnections();
    await Promise.allSettled([db.$disconnect(), redis.quit()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
