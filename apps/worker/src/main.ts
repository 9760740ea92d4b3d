// The worker process: migrations, then one BullMQ Worker per queue; SIGTERM lets running jobs finish.
import { ConfigError, createLogger, keepMemoryReducerWorking, loadConfig } from '@slipway/config';
import { migrate } from '@slipway/db';
import { startWorkerRuntime } from './runtime';

async function main() {
  const config = loadConfig('control');
  const logger = createLogger('worker', config.log.level);
  keepMemoryReducerWorking();
  const migrations = await migrate(config.database.url);
  if (migrations.applied.length) logger.info({ applied: migrations.applied }, 'migrations applied');
  const runtime = await startWorkerRuntime(config, logger);
  logger.info({ prefix: config.redis.prefix, concurrency: config.worker.concurrency }, 'workers running');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: letting running jobs finish');
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
