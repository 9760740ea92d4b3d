import type { Config } from '@slipway/config';
import {
  AppPowerService,
  CrashWatchService,
  dependencyWarnings,
  DeploymentRunner,
  imageSources,
  LogRetentionService,
  NodeService,
  RoutingService,
  SecretBox,
  OperationRunner,
  OperationService,
  PlanEnforcementService,
  ReconcileService,
  systemClock,
  WorkspaceTeardownService,
  type Logger,
  type OperationHandlers,
} from '@slipway/core';
import { createAgentRepositories, createDb, createJobStores, createRepositories, createSqlPool, type Db } from '@slipway/db';
import { CertificateAuthority } from '@slipway/pki';
import { AgentPool, BuildsPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection, isJobName, ownerOf } from '@slipway/queue';
import type Redis from 'ioredis';
import { ContainerEventSubscriptions } from './container-events';
import { buildProcessors, type WorkerServices } from './processors';
import { runWorkers, type WorkerPool } from './workers';

export interface WorkerRuntime {
  services: WorkerServices;
  jobs: BullJobQueue;
  agents: AgentPool;
  pool: WorkerPool;
  db: Db;
  /** Graceful: running jobs finish, then every connection closes. */
  close(): Promise<void>;
}

/**
 * Composes the workers: database, Redis, the CA's client certificate for calling agents, the services
 * and one BullMQ Worker per queue. apps/worker/src/main.ts runs it as its own process; the API runs
 * it in-process when SLIPWAY_WORKER_IN_PROCESS=true.
 */
export async function startWorkerRuntime(
  config: Readonly<Config>,
  logger: Logger,
  options: { schedule?: boolean; events?: boolean; apps?: { readyTimeoutMs?: number; stopGraceMs?: number; maxLogBytes?: number } } = {},
): Promise<WorkerRuntime> {
  // A PostgreSQL or Redis restart never ends the process: broken connections are logged and opened again; a job
  // that failed meanwhile is retried by its catalog entry, and BullMQ waits for Redis to come back.
  const onDbError = dependencyWarnings(logger, 'postgresql');
  const db = createDb(config.database.url, { onError: onDbError });
  const onRedisError = dependencyWarnings(logger, 'redis');
  const connection: Redis = createRedisConnection(config.redis.url, { onError: onRedisError });
  const ca = await CertificateAuthority.open(config.controlPlane.dataDir);
  const agents = new AgentPool(ca.client);
  // The dispatch path's statements run on plain node-postgres (prepared statements), the rest through Prisma.
  const sql = createSqlPool(config.database.url, { max: Math.min(32, config.worker.concurrency * 2), onError: onDbError });
  const repos = createAgentRepositories(db, sql);
  const jobs = new BullJobQueue({ connection, prefix: config.redis.prefix, onError: onRedisError });

  const nodes = new NodeService({ nodes: repos.nodes, agents, logger, offlineAfterMs: 2 * config.worker.nodeHealthIntervalMs });
  const operations = new OperationService({ operations: repos.operationStore, agents, jobs });
  const reconcile = new ReconcileService({ nodes, owners: repos.owners, operations: repos.operationStore, agents, jobs, logger });
  const control = createRepositories(db, sql);
  // The job side, keyed by the row ids the jobs carry: composed here only, never in the API.
  const stores = createJobStores(db);
  const teardown = new WorkspaceTeardownService({ teardown: stores.teardown, agents, operations: repos.operationStore, clock: systemClock, logger });
  const enforcement = new PlanEnforcementService({ workspaces: control.workspaces, logger });
  const deployments = new DeploymentRunner({
    apps: stores.apps,
    deployments: stores.deployments,
    env: control.env,
    secrets: new SecretBox(config.secrets.encryptionKey),
    agents,
    sources: imageSources({ agents, deployments: stores.deployments, builds: new BuildsPool(agents) }),
    appsDomain: config.apps,
    clock: systemClock,
    logger,
    maxLogBytes: config.logs.maxBytesPerDeployment,
    ...options.apps,
  });
  const logRetention = new LogRetentionService({
    store: stores.logRetention,
    keepDeployments: config.logs.keepDeployments,
    keepDays: config.logs.keepDays,
    clock: systemClock,
    logger,
  });
  const routing = new RoutingService({ apps: stores.apps, nodes: repos.nodes, agents, appsDomain: config.apps, logger });
  const power = new AppPowerService({ apps: stores.apps, agents, appsDomain: config.apps, clock: systemClock, stopGraceMs: options.apps?.stopGraceMs });
  const crashes = new CrashWatchService({ apps: stores.apps, deployments: stores.deployments, agents, clock: systemClock, logger });
  // Every job that owns an Operation row, by kind: the compiler refuses an operation job without its handler.
  const handlers: OperationHandlers = {
    'agent.noop': operations.noop,
    'workspace.teardown': teardown.handler,
    'app.power': power.power,
    'app.teardown': power.teardown,
  };
  const runner = new OperationRunner({ operations: repos.operationStore, handlers, clock: systemClock, logger });
  const services: WorkerServices = { operations, runner, nodes, reconcile, enforcement, deployments, routing, logRetention };

  const pool = runWorkers({
    connection,
    prefix: config.redis.prefix,
    processors: buildProcessors(services),
    concurrency: config.worker.concurrency,
    lockMs: config.worker.lockMs,
    logger,
    // The catalog names the row each job owns: it must not stay in a running state.
    onFailedForGood: async (job, reason) => {
      const row = isJobName(job.name) ? ownerOf(job.name, job.data) : null;
      if (row?.owner === 'operation') await runner.failForGood(row.id, reason);
      if (row?.owner === 'deployment') await deployments.failedForGood(row.id, reason);
    },
  });
  if (options.schedule !== false) {
    await jobs.scheduleRepeatable({
      'node.check-health': { every: config.worker.nodeHealthIntervalMs },
      'reconcile.run': { every: config.worker.reconcileIntervalMs },
      'routes.sync': { every: Math.min(30_000, config.worker.reconcileIntervalMs) },
      'deployment.prune-logs': { every: config.logs.pruneIntervalMs },
    });
  }
  const events = new ContainerEventSubscriptions({
    nodes: repos.nodes,
    agents,
    logger,
    // An app's live container that exits on its own makes the app `crashed` (exit code, restarts, last lines).
    onExit: (node, e) => {
      logger.info({ node: node.name, container: e.containerId, exitCode: e.exitCode, labels: e.labels }, 'container exited');
      crashes.containerExited(node, e).catch((err: Error) => logger.warn({ err: err.message }, 'could not record a container exit'));
    },
    // A snapshot comes first on every stream and again after the node's Docker engine restarted (exits may have been
    // missed, the restart policy may have brought containers back): reconciliation compares the records with it now.
    // Only where reconciliation is scheduled at all (not in tests that run jobs by hand).
    onSnapshot: (node, s) => {
      logger.info({ node: node.name, containers: s.containers.length }, 'container snapshot from the agent');
      if (options.schedule === false) return;
      jobs
        .enqueue('reconcile.run', {}, { jobId: `snapshot-${node.id}-${Math.floor(s.atMs)}` })
        .catch((err: Error) => logger.warn({ err: err.message }, 'could not queue a reconciliation after a snapshot'));
    },
  });
  if (options.events !== false) events.start(config.worker.nodeHealthIntervalMs);

  return {
    services,
    jobs,
    agents,
    pool,
    db,
    close: async () => {
      events.stop();
      await pool.close();
      await jobs.close();
      agents.close();
      await db.$disconnect();
      await sql.end();
      connection.disconnect();
    },
  };
}
