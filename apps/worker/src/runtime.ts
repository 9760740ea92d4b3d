import { readGithubApp, type Config } from '@slipway/config';
import {
  AppConvergeService,
  AppPowerService,
  CrashWatchService,
  BackupJobService,
  type BackupSettings,
  type Clock,
  DatabaseConvergeService,
  dependencyWarnings,
  DeploymentRunner,
  GithubClient,
  GithubCommitStatuses,
  GithubDeliveryService,
  DomainCheckService,
  imageSources,
  LogRetentionService,
  MetricsCollectService,
  NodeService,
  RoutingService,
  SecretBox,
  OperationRunner,
  OperationService,
  PlanEnforcementService,
  ReconcileService,
  systemClock,
  WorkspaceTeardownService,
  LABELS,
  type Logger,
  type OperationHandlers,
} from '@slipway/core';
import { createAgentRepositories, createDb, createJobStores, createRepositories, createSqlPool, PgAppLocks, PgMetricsStore, type Db } from '@slipway/db';
import { CertificateAuthority } from '@slipway/pki';
import { AgentPool, BackupsPool, BuildsPool, DatabasesPool, DomainsPool, MetricsPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection, isJobName, ownerOf } from '@slipway/queue';
import type Redis from 'ioredis';
import { ContainerEventSubscriptions } from './container-events';
import { databaseAgentOf } from './databases/database-agent';
import { FileDatabaseCertificates } from './databases/database-ca';
import { buildProcessors, type WorkerServices } from './processors';
import { runWorkers, type WorkerPool } from './workers';

/** After an exit, an app busy with a job is compared again this often, this many times (then the next pass does). */
const EXIT_RECHECK_MS = 2_000;
const EXIT_RECHECK_TRIES = 10;

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
  options: {
    schedule?: boolean;
    events?: boolean;
    apps?: { readyTimeoutMs?: number; stopGraceMs?: number; maxLogBytes?: number };
    /** Database backups (issue 13): tests drive the schedule and retention with their own clock. */
    backups?: { clock?: Clock; settings?: BackupSettings };
  } = {},
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
  const control = createRepositories(db, sql);
  // The job side, keyed by the row ids the jobs carry: composed here only, never in the API.
  const stores = createJobStores(db);
  // Per-app locks: one connection per app being worked on (waiters hold none), apart from the queries' pools.
  const lockPool = createSqlPool(config.database.url, { max: config.worker.concurrency + 4, onError: onDbError });
  const locks = new PgAppLocks(lockPool);
  const secrets = new SecretBox(config.secrets.encryptionKey);
  const converge = new AppConvergeService({
    apps: stores.apps,
    deployments: stores.deployments,
    env: control.env,
    secrets,
    agents,
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
  const routing = new RoutingService({ apps: stores.apps, nodes: repos.nodes, agents, appsDomain: config.apps, logger, meshPort: config.mesh.port });
  // Databases (issue 12): their jobs and repairs hold the same per-id locks as apps (keyed by the database id).
  const databases = new DatabaseConvergeService({
    databases: stores.databases,
    agents: databaseAgentOf(new DatabasesPool(agents)),
    certificates: new FileDatabaseCertificates(config.controlPlane.dataDir),
    secrets,
    locks,
    clock: systemClock,
    logger,
  });
  const reconcile = new ReconcileService({
    nodes,
    owners: repos.owners,
    operations: repos.operationStore,
    agents,
    jobs,
    logger,
    apps: { apps: stores.apps, deployments: stores.deployments, converge, locks, routing },
    databases,
  });
  const teardown = new WorkspaceTeardownService({ teardown: stores.teardown, agents, operations: repos.operationStore, clock: systemClock, logger, databases });
  const enforcement = new PlanEnforcementService({ workspaces: control.workspaces, logger });
  // GitHub as a source (issue 16): the App's client when configured (installation tokens, compare, statuses).
  const githubApp = readGithubApp(config.github);
  const github = githubApp ? new GithubClient(githubApp) : null;
  const deployments = new DeploymentRunner({
    apps: stores.apps,
    deployments: stores.deployments,
    env: control.env,
    secrets,
    agents,
    sources: imageSources({
      agents,
      deployments: stores.deployments,
      builds: new BuildsPool(agents),
      github: github && config.github ? { api: github, apiUrl: config.github.apiUrl } : null,
    }),
    appsDomain: config.apps,
    clock: systemClock,
    logger,
    locks,
    converge,
    observer: github ? new GithubCommitStatuses({ api: github, apps: stores.apps, publicUrl: config.api.publicUrl, logger }) : undefined,
    ...options.apps,
  });
  const power = new AppPowerService({ apps: stores.apps, agents, converge, locks });
  const crashes = new CrashWatchService({ apps: stores.apps, deployments: stores.deployments, agents, clock: systemClock, logger, locks });
  // Every job that owns an Operation row, by kind: the compiler refuses an operation job without its handler.
  const handlers: OperationHandlers = {
    'agent.noop': operations.noop,
    'workspace.teardown': teardown.handler,
    'app.power': power.power,
    'app.teardown': power.teardown,
    'database.converge': databases.converge,
    'database.rotate-password': databases.rotate,
    'database.teardown': databases.teardown,
  };
  const runner = new OperationRunner({ operations: repos.operationStore, handlers, clock: systemClock, logger });
  const githubDeliveries = new GithubDeliveryService({
    deliveries: control.githubDeliveries,
    store: stores.github,
    deployments: control.deployments,
    deploymentJobs: stores.deployments,
    jobs,
    api: github,
    webUrl: config.github?.webUrl ?? 'https://github.com',
    clock: systemClock,
    logger,
  });
  // Custom domains (issue 14): re-checks from the app's server, routes and certificate states per server.
  const domains = new DomainCheckService({
    store: stores.domains,
    agents: new DomainsPool(agents),
    appsDomain: config.apps,
    clock: systemClock,
    logger,
    enqueueCheck: (domainId) => jobs.enqueue('domain.check', { domainId }, { jobId: `domain-${domainId}-${Math.floor(Date.now() / 60_000)}` }),
  });
  // Issue 15: metric minutes pulled from each online server into PostgreSQL, and pruned after 31 days.
  const metrics = new MetricsCollectService({ nodes: repos.nodes, metrics: new MetricsPool(agents), store: new PgMetricsStore(sql), clock: systemClock, logger });
  // Database backups (issue 13): under the databases' per-id locks too.
  const backups = new BackupJobService({
    backups: stores.backups,
    databases: stores.databases,
    agents: new BackupsPool(agents),
    secrets,
    locks,
    jobs,
    clock: options.backups?.clock ?? systemClock,
    logger,
    settings: options.backups?.settings ?? config.backups,
  });
  const services: WorkerServices = { operations, runner, nodes, reconcile, enforcement, deployments, routing, logRetention, databases, backups, metrics, domains, github: githubDeliveries };

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
      'domains.sweep': { every: 60_000 },
      'metrics.collect': { every: config.metrics.collectIntervalMs },
      'metrics.prune': { every: 60 * 60 * 1000 },
    });
  }
  const events = new ContainerEventSubscriptions({
    nodes: repos.nodes,
    agents,
    logger,
    // An app's live container that exits on its own makes the app `crashed` (exit code, restarts, last lines).
    // Then the app is compared with its containers at once (a container stopped behind the platform's back starts
    // again; one Docker is restarting is left to its backoff).
    onExit: (node, e) => {
      logger.info({ node: node.name, container: e.containerId, exitCode: e.exitCode, labels: e.labels }, 'container exited');
      const appId = e.labels[LABELS.app];
      const why = `container ${e.containerId.slice(0, 12)} exited (${e.action}, ${e.exitCode})`;
      // A database's container that exits is compared with its row at once (a job that holds it converges it itself).
      const databaseId = e.labels[LABELS.database];
      if (databaseId && !stopped) {
        databases.reconcileDatabase(node, databaseId, why).catch((err: Error) => logger.warn({ databaseId, err: err.message }, 'could not compare the database after an exit'));
      }
      // An app whose lock is held (a rollout, a power job) is compared again shortly: its holder may have looked
      // before this exit.
      const compare = async (tries: number): Promise<void> => {
        if (!appId || stopped) return;
        if ((await reconcile.reconcileApp(node, appId, why)) !== null || tries <= 1) return;
        await new Promise((r) => setTimeout(r, EXIT_RECHECK_MS).unref());
        await compare(tries - 1);
      };
      crashes
        .containerExited(node, e)
        .catch((err: Error) => logger.warn({ err: err.message }, 'could not record a container exit'))
        .then(() => compare(EXIT_RECHECK_TRIES))
        .catch((err: Error) => logger.warn({ appId, err: err.message }, 'could not compare the app with its containers after an exit'));
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
  let stopped = false;
  if (options.events !== false) events.start(config.worker.nodeHealthIntervalMs);

  return {
    services,
    jobs,
    agents,
    pool,
    db,
    close: async () => {
      stopped = true;
      events.stop();
      await pool.close();
      await jobs.close();
      agents.close();
      await db.$disconnect();
      await sql.end();
      await lockPool.end();
      connection.disconnect();
    },
  };
}
