// Composition root of the control plane: settings, database, Redis, routes; graceful shutdown.
import { once } from 'node:events';
import { ConfigError, createLogger, keepMemoryReducerWorking, loadConfig } from '@slipway/config';
import { dependencyWarnings, PlanCatalogConflict } from '@slipway/core';
import { createAgentRepositories, createDb, createSqlPool, migrate, ReadCache } from '@slipway/db';
import { CertificateAuthority } from '@slipway/pki';
import { AgentPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { createApp } from './app';
import { agentsCheck } from './nodes/agents.readiness';
import { databaseCheck, redisCheck } from './readiness';
import { metricsEndpoint, serveMetrics } from './observability/metrics.endpoint';
import { LatencyHistogram } from './observability/prometheus';
import { metricsSources } from './observability/sources';
import { createOperatorApp, createOperatorService } from './operator/operator.routes';
import { OperatorSocketError, serveOperatorSocket } from './operator/operator.socket';
import { agentGateways, apiRouter, createServices, settingsDeps } from './services';

async function main() {
  const config = loadConfig('control');
  const logger = createLogger('api', config.log.level);
  keepMemoryReducerWorking();
  const migrations = await migrate(config.database.url);
  if (migrations.applied.length) logger.info({ applied: migrations.applied }, 'migrations applied');

  // PostgreSQL or Redis restarting never ends the process: broken connections are logged and opened again, and
  // requests that needed them are answered 503 service_unavailable meanwhile (/readyz says which one is down).
  const onDbError = dependencyWarnings(logger, 'postgresql');
  const db = createDb(config.database.url, { onError: onDbError });
  const sql = createSqlPool(config.database.url, { onError: onDbError });
  const onRedisError = dependencyWarnings(logger, 'redis');
  const redis = createRedisConnection(config.redis.url, { role: 'producer', onError: onRedisError });
  const jobs = new BullJobQueue({ connection: redis, prefix: config.redis.prefix, onError: onRedisError });
  // The agents' CA (created on first start) and its client certificate: readiness and runtime logs call agents over mTLS.
  const ca = await CertificateAuthority.open(config.controlPlane.dataDir);
  const agents = new AgentPool(ca.client);
  // Credentials and app reads answered from memory, kept true by PostgreSQL's notifications (decision 0041).
  const reads = new ReadCache(sql, { logger: logger.child({ component: 'read-cache' }) });
  await reads.start();
  const services = createServices({ db, sql, reads, redis, jobs, logger, ...settingsDeps(config), ...agentGateways(agents) });
  const agentsReady = agentsCheck({ nodes: createAgentRepositories(db).nodes, agents, addresses: config.controlPlane.agentAddresses });
  // A published plan version never changes: a catalog file that contradicts the table stops start-up here.
  const seeded = await services.plans.seed();
  logger.info(seeded, 'plan catalog seeded');
  const v1 = apiRouter(services, {
    publicOrigin: config.api.publicOrigin,
    secureCookies: config.api.secureCookies,
    bodyLimitBytes: config.api.bodyLimitBytes,
  });
  // Prometheus text (issue 15): on the API's port behind SLIPWAY_METRICS_TOKEN, and/or on SLIPWAY_METRICS_LISTEN.
  const http = new LatencyHistogram();
  const sources = metricsSources({ http, jobs, nodes: createAgentRepositories(db).nodes });
  const observability = { http, metrics: config.metrics.token ? metricsEndpoint({ token: config.metrics.token, sources }) : undefined };
  const metricsServer = config.metrics.listen ? await serveMetrics(config.metrics.listen, sources) : null;
  if (metricsServer) logger.info({ listen: config.metrics.listen }, 'Prometheus metrics listening');
  const app = createApp({ logger, readiness: [databaseCheck(db, sql), redisCheck(redis), agentsReady], v1: [v1], observability, bootId: config.api.bootId });
  const server = app.listen(config.api.port, config.api.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  logger.info({ url: `http://${config.api.host}:${port}`, bootId: config.api.bootId }, 'API listening');
  // The operator API (issue 32, decision 0037): servers, drains and moves on a Unix socket only, mode 0600.
  const operatorApp = config.operator.socket ? createOperatorApp({ operator: createOperatorService({ db, jobs }), logger: logger.child({ listener: 'operator' }) }) : null;
  const operatorSocket = operatorApp && config.operator.socket ? await serveOperatorSocket(config.operator.socket, operatorApp) : null;
  if (operatorSocket) logger.info({ socket: operatorSocket.path }, 'operator API listening');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Stop accepting, let requests in flight finish (up to 10 s), then close what they used.
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    server.closeAllConnections();
    await operatorSocket?.close(1000);
    await metricsServer?.close();
    agents.close();
    await Promise.allSettled([reads.close(), jobs.close(), db.$disconnect(), sql.end(), redis.quit()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError || e instanceof PlanCatalogConflict || e instanceof OperatorSocketError ? e.message : e);
  process.exit(1);
});
