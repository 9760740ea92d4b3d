import { readGithubApp, type Config } from '@slipway/config';
import {
  AppConvergeService,
  MoveRunner,
  AppConverger,
  AppPowerService,
  CrashWatchService,
  BackupJobService,
  WorkspaceBackupKeys,
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
  openBuildVariables,
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
  type Logger,
  type OperationHandlers,
} from '@slipway/core';
import { createAgentRepositories, createDb, createJobStores, createRepositories, createSqlPool, PgMetricsStore, PgResourceLocks, type Db } from '@slipway/db';
import { CertificateAuthority, FileDatabaseCertificates } from '@slipway/pki';
import { removeStored } from '@slipway/offsite';
import { AgentPool, BackupsPool, BuildsPool, databaseAgentOf, DatabasesPool, DomainsPool, MetricsPool, MovesPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection, isJobName, ownerOf } from '@slipway/queue';
import type Redis from 'ioredis';
import { ContainerEventSubscriptions } from './container-events';
import { buildProcessors, type WorkerServices } from './processors';
import { WorkloadEvents } from './workload-events';
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
 * and one BullMQ Worker per queue. apps/worker/src/main.ts runs it as its own process (the test harness
 * in testing/ runs it in-process).
 */
export async function startWorkerRuntime(
  config: Readonly<Config>,
  logger: Logger,
  options: {
    schedule?: boolean;
    events?: boolean;
    apps?: { readyTimeoutMs?: number; stopGraceMs?: number; maxLogBytes?: number; warmPrevious?: boolean };
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

  const nodes = new NodeService({ nodes: repos.nodes, agents, engines: databaseAgentOf(new DatabasesPool(agents)), logger, offlineAfterMs: 2 * config.worker.nodeHealthIntervalMs });
  const operations = new OperationService({ operations: repos.operationStore, agents, jobs });
  const control = createRepositories(db, sql);
  // The job side, keyed by the row ids the jobs carry: composed here only, never in the API.
  const stores = createJobStores(db);
  // Per-resource locks (apps, databases: each kind its own key space): one connection per resource being worked on
  // (waiters hold none), apart from the queries' pools.
  const lockPool = createSqlPool(config.database.url, { max: config.worker.concurrency + 4, onError: onDbError });
  const locks = new PgResourceLocks(lockPool);
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
  // Databases (issue 12): their jobs, backups and repairs hold the database's lock.
  const databaseAgent = databaseAgentOf(new DatabasesPool(agents));
  const databaseCertificates = new FileDatabaseCertificates(config.controlPlane.dataDir);
  const databases = new DatabaseConvergeService({
    databases: stores.databases,
    agents: databaseAgent,
    certificates: databaseCertificates,
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
    locks,
    // Every workload kind the passes and the container events compare with what the servers hold.
    convergers: [new AppConverger({ apps: stores.apps, deployments: stores.deployments, converge, routing }), databases],
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
      // The app's variables reach its build command (issue 30): read when the build starts, secrets opened here.
      variables: (app) => openBuildVariables(control.env, secrets, { workspaceId: app.workspaceId, appId: app.id }),
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
  const domainsPool = new DomainsPool(agents);
  const domains = new DomainCheckService({
    store: stores.domains,
    agents: domainsPool,
    appsDomain: config.apps,
    clock: systemClock,
    logger,
    enqueueCheck: (domainId) => jobs.enqueue('domain.check', { domainId }, { jobId: `domain-${domainId}-${Math.floor(Date.now() / 60_000)}` }),
    meshPort: config.mesh.port,
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
    // Issue 33: backups of a database with a destination are streamed there by its agent; retention removes the objects.
    offsite: {
      destinations: stores.backupDestinations,
      keys: new WorkspaceBackupKeys({ keys: stores.workspaceBackupKeys, secrets }),
      storage: { remove: (target, key) => removeStored({ ...target, prefix: '' }, key) },
    },
  });
  // Moves of workspaces between servers (issue 32): each under the workspace's lock, its steps on the move's row.
  const moves = new MoveRunner({
    moves: stores.moves,
    workspaces: stores.moveWorkspaces,
    nodes: repos.nodes,
    agents,
    transfer: new MovesPool(agents),
    apps: stores.apps,
    env: control.env,
    domains,
    // Issue 32: the custom domains' certificates move with the workspace (the target serves and renews them).
    domainCertificates: domainsPool,
    databases: stores.databases,
    databaseAgent,
    certificates: databaseCertificates,
    secrets,
    appsDomain: config.apps,
    routing,
    locks,
    jobs,
    clock: systemClock,
    logger,
    ...options.apps,
  });
  const services: WorkerServices = { operations, runner, nodes, reconcile, enforcement, deployments, routing, logRetention, databases, backups, metrics, domains, github: githubDeliveries, moves };

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
      if (row?.owner === 'move') await moves.failedForGood(row.id, reason);
      if ((row?.owner === 'backup' || row?.owner === 'restore') && (job.name === 'backup.run' || job.name === 'backup.verify' || job.name === 'backup.restore')) {
        await backups.failedForGood(job.name, row.id, reason);
      }
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
  const workloadEvents = new WorkloadEvents({ crashes, reconcile, logger });
  const events = new ContainerEventSubscriptions({
    nodes: repos.nodes,
    agents,
    logger,
    // An exit, an OOM kill or a removal the platform did not cause: the status at once, then the repair (WorkloadEvents).
    onExit: (node, e) => {
      logger.info({ node: node.name, container: e.containerId, action: e.action, exitCode: e.exitCode, cause: e.cause, labels: e.labels }, 'container event');
      workloadEvents.handle(node, e);
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
      workloadEvents.stop();
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
