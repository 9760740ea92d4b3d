// Composition of the core services over the repositories and adapters. main.ts, the tests and the benchmark
// build the API from here, so they run the very same wiring.
import {
  AccessService,
  BackupDestinationService,
  type DestinationProbe,
  AppError,
  AppService,
  DatabaseService,
  DeploymentService,
  DomainService,
  type DomainsGateway,
  SecretBox,
  Argon2idHasher,
  AuthService,
  EnrollmentService,
  LoginThrottle,
  MemberService,
  PlanEnforcementService,
  PlanService,
  QuotaService,
  SecretHasher,
  systemClock,
  TokenService,
  WorkspaceService,
  type AgentGateway,
  FilesService,
  GithubClient,
  GithubService,
  GithubWebhookService,
  type GithubApi,
  type GithubAppSettings,
  MetricsService,
  type BuildsGateway,
  type FilesGateway,
  type Clock,
  type JobQueue,
  type Logger,
  type LoginThrottleLimits,
  type PasswordHasher,
  type PlanEntry,
  type BackupAgent,
  BackupService,
  type DatabaseAgent,
} from '@slipway/core';
import { probeTarget } from '@slipway/offsite';
import { readGithubApp, type Config } from '@slipway/config';
import { FileDatabaseCertificates } from '@slipway/pki';
import { createAgentRepositories, createRepositories, PgMetricsRepository, PrismaResourceEventReader, type Db, type ReadCache, type SqlPool } from '@slipway/db';
import { BackupsPool, BuildsPool, databaseAgentOf, DatabasesPool, DomainsPool, FilesPool, type AgentPool } from '@slipway/proto';
import type Redis from 'ioredis';
import type { Router } from 'express';
import { RedisRateCounter } from './adapters/redis-rate-counter';
import { operationsRouter, type ContractViolation } from './http/operations';
import { certificateAuthorityOf } from './nodes/certificate-authority';
import { enrollmentRoutes } from './nodes/enrollment.routes';
import { authRoutes } from './routes/auth.routes';
import { domainRoutes } from './routes/domains.routes';
import { backupDestinationRoutes } from './routes/backup-destinations.routes';
import { backupRoutes } from './routes/backups.routes';
import { fileRoutes } from './routes/files.routes';
import { githubRoutes } from './routes/github.routes';
import { metricRoutes } from './routes/metrics.routes';
import { appRoutes } from './routes/apps.routes';
import { databaseRoutes } from './routes/databases.routes';
import { memberRoutes } from './routes/members.routes';
import { metaRoutes } from './routes/meta.routes';
import { tokenRoutes } from './routes/tokens.routes';
import { workspaceRoutes } from './routes/workspaces.routes';

export interface ServiceDeps {
  db: Db;
  /** Plain pool for the per-request lookups (createSqlPool). */
  sql: SqlPool;
  /**
   * The reads kept in memory (credentials, apps) and dropped on PostgreSQL's notifications (decision 0041); started
   * and closed by whoever made it. Without it every read goes to PostgreSQL.
   */
  reads?: ReadCache | null;
  redis: Redis;
  jobs: JobQueue;
  logger: Logger;
  /** config.secrets.sessionKey: keys the hashes of session and API-token values. */
  sessionKey: string;
  /** config.redis.prefix: every Redis key of the API starts with it. */
  redisPrefix: string;
  clock?: Clock;
  passwords?: PasswordHasher;
  loginLimits?: LoginThrottleLimits;
  /** The plan catalog to seed (default: the catalog files of packages/core). */
  planEntries?: PlanEntry[];
  /** config.controlPlane.dataDir: the agents' certificate authority lives under `<dataDir>/ca`. */
  dataDir?: string;
  /**
   * config.secrets.encryptionKey: seals secret variables (AES-256-GCM). Required: a key made up here would seal
   * values that no other process (the worker) and no restart could open.
   */
  encryptionKey: Buffer;
  /** config.apps: web apps get <subdomain>.<domain> and a URL with the scheme. */
  appsDomain: { domain: string; scheme: 'http' | 'https' };
  /** The servers' mesh listener port (issue 31): with one, custom domains are served by every online server. */
  meshPort?: number;
  /** Calls agents for the interactive reads (runtime logs); without it those answer 503 node_unavailable. */
  agents?: AgentGateway;
  /** The agents' Files service (FilesPool over the same connections); without it the files API answers 503. */
  files?: FilesGateway;
  /** config.limits.uploadFileBytes: largest PUT of a project file (default 100 MB). */
  maxFileUploadBytes?: number;
  /** The agents' Builds service (BuildsPool): .zip uploads are streamed to it; without it uploads answer 503. */
  builds?: BuildsGateway;
  /** config.limits.uploadZipBytes: largest .zip upload (default 200 MB). */
  maxZipUploadBytes?: number;
  /** The platform's GitHub App (config.github with its key read); null or absent: GitHub operations answer 503. */
  github?: GithubAppSettings | null;
  /** Another GitHub API client than the App's own (tests); default: GithubClient over `github`. */
  githubApi?: GithubApi;
  /** The agents' Domains service (DomainsPool): DNS checks and custom-domain routes; without it verify answers 503. */
  domains?: DomainsGateway;
  /** The agents' Databases service (issue 12); without it creating a database answers 503 node_unavailable. */
  databases?: DatabaseAgent;
  /** The agents' Backups service (issue 13): downloads and deletions of backup files. */
  backups?: BackupAgent;
  /** The test call of backup destinations (issue 33); default: a real probe over the AWS SDK (packages/offsite). */
  destinationProbe?: DestinationProbe;
}

export type Services = ReturnType<typeof createServices>;

/** The deps that come from the settings, as main.ts and the platform harness read them from the loaded config. */
export function settingsDeps(
  config: Pick<Config, 'secrets' | 'redis' | 'controlPlane' | 'apps' | 'limits'> & Partial<Pick<Config, 'github' | 'mesh'>>,
): Pick<ServiceDeps, 'sessionKey' | 'redisPrefix' | 'dataDir' | 'encryptionKey' | 'appsDomain' | 'maxFileUploadBytes' | 'maxZipUploadBytes' | 'github' | 'meshPort'> {
  return {
    sessionKey: config.secrets.sessionKey,
    redisPrefix: config.redis.prefix,
    dataDir: config.controlPlane.dataDir,
    encryptionKey: config.secrets.encryptionKey,
    appsDomain: config.apps,
    maxFileUploadBytes: config.limits.uploadFileBytes,
    maxZipUploadBytes: config.limits.uploadZipBytes,
    github: readGithubApp(config.github ?? null),
    meshPort: config.mesh?.port,
  };
}

/** The agent gateways (runtime logs, files, .zip uploads) over one pool of mTLS connections. */
export function agentGateways(agents: AgentPool): Pick<ServiceDeps, 'agents' | 'files' | 'builds' | 'domains' | 'databases' | 'backups'> {
  return { agents, files: new FilesPool(agents), builds: new BuildsPool(agents), databases: databaseAgentOf(new DatabasesPool(agents)), backups: new BackupsPool(agents), domains: new DomainsPool(agents) };
}

const noAgent = async (): Promise<never> => {
  throw new AppError('node_unavailable', 'This API was started without a connection to the agents');
};
const NO_DOMAINS: DomainsGateway = { checkDomain: noAgent, syncDomains: noAgent, certificates: noAgent, issuedCertificates: noAgent };
const NO_FILES: FilesGateway = { listFiles: noAgent, readFile: noAgent, writeFile: noAgent, renameFile: noAgent, deleteFile: noAgent };

export function createServices(deps: ServiceDeps) {
  const repos = createRepositories(deps.db, deps.sql, deps.reads ?? undefined);
  const agentRepos = createAgentRepositories(deps.db);
  const clock = deps.clock ?? systemClock;
  const secrets = new SecretHasher(deps.sessionKey);
  const quota = new QuotaService(repos.reservations);
  const throttle = new LoginThrottle(new RedisRateCounter(deps.redis, deps.redisPrefix), deps.loginLimits);
  // GitHub as a source (issue 16): one client of the App, shared by the checks of apps and deployments.
  const githubApi = deps.github ? (deps.githubApi ?? new GithubClient(deps.github)) : null;
  const github = new GithubService({
    api: githubApi,
    settings: deps.github ?? null,
    installations: repos.githubInstallations,
    stateSecret: deps.sessionKey,
    clock,
  });
  const services = {
    github,
    githubWebhooks: new GithubWebhookService({ webhookSecret: deps.github?.webhookSecret ?? null, deliveries: repos.githubDeliveries, jobs: deps.jobs, logger: deps.logger }),
    auth: new AuthService({
      users: repos.users,
      sessions: repos.sessions,
      tokens: repos.tokens,
      passwords: deps.passwords ?? new Argon2idHasher(),
      secrets,
      throttle,
      clock,
    }),
    access: new AccessService(repos.workspaces),
    workspaces: new WorkspaceService({ workspaces: repos.workspaces, plans: repos.plans, jobs: deps.jobs, clock, logger: deps.logger }),
    members: new MemberService({ members: repos.members, users: repos.users, clock }),
    tokens: new TokenService({ tokens: repos.tokens, secrets, clock }),
    plans: new PlanService({ plans: repos.plans, reservations: repos.reservations, entries: deps.planEntries }),
    quota,
    apps: new AppService({
      apps: repos.apps,
      env: repos.env,
      plans: repos.plans,
      quota,
      operations: repos.operations,
      nodes: agentRepos.nodes,
      jobs: deps.jobs,
      secrets: new SecretBox(deps.encryptionKey),
      appsDomain: deps.appsDomain,
      clock,
      logger: deps.logger,
      agents: deps.agents,
      github,
      events: new PrismaResourceEventReader(deps.db),
    }),
    files: new FilesService({
      apps: repos.apps,
      nodes: agentRepos.nodes,
      files: deps.files ?? NO_FILES,
      maxUploadBytes: deps.maxFileUploadBytes ?? 100_000_000,
    }),
    deployments: new DeploymentService({
      apps: repos.apps,
      deployments: repos.deployments,
      users: repos.users,
      jobs: deps.jobs,
      builds: deps.builds,
      maxZipBytes: deps.maxZipUploadBytes ?? 200_000_000,
      github,
    }),
    enforcement: new PlanEnforcementService({ workspaces: repos.workspaces, logger: deps.logger }),
    domains: new DomainService({
      domains: repos.domains,
      apps: repos.apps,
      agents: deps.domains ?? NO_DOMAINS,
      appsDomain: deps.appsDomain,
      clock,
      logger: deps.logger,
      meshPort: deps.meshPort,
    }),
    metrics: new MetricsService({ apps: repos.apps, metrics: new PgMetricsRepository(deps.sql), clock }),
    databases: new DatabaseService({
      databases: repos.databases,
      plans: repos.plans,
      quota,
      nodes: agentRepos.nodes,
      jobs: deps.jobs,
      secrets: new SecretBox(deps.encryptionKey),
      clock,
      logger: deps.logger,
      agents: deps.databases,
      events: new PrismaResourceEventReader(deps.db),
    }),
    databaseCertificates: deps.dataDir ? new FileDatabaseCertificates(deps.dataDir) : null,
    enrollment: new EnrollmentService({ tokens: agentRepos.enrollmentTokens, nodes: agentRepos.nodes, ca: certificateAuthorityOf(deps.dataDir) }),
  };
  // Database backups (issue 13): restore into a new database creates it through the databases service.
  const backups = new BackupService({
    backups: repos.backups,
    databases: repos.databases,
    databaseService: services.databases,
    nodes: agentRepos.nodes,
    jobs: deps.jobs,
    clock,
    logger: deps.logger,
    agents: deps.backups,
  });
  // Backup destinations (issue 33): S3-compatible buckets, the secret key sealed like other secrets.
  const backupDestinations = new BackupDestinationService({
    destinations: repos.backupDestinations,
    secrets: new SecretBox(deps.encryptionKey),
    probe: deps.destinationProbe ?? probeTarget,
    // The test call runs on the workspace's server when it has one (where its backups upload from).
    ...(deps.backups?.probeDestination ? { fromServer: { nodes: agentRepos.nodes, probe: deps.backups.probeDestination.bind(deps.backups) } } : {}),
  });
  return { ...services, backups, backupDestinations, reads: deps.reads ?? null };
}

export interface ApiOptions {
  publicOrigin: string;
  secureCookies: boolean;
  bodyLimitBytes: number;
  onContractViolation?: (v: ContractViolation) => void;
}

/** The /v1 router: every operation of the OpenAPI document, each with its handler. */
export function apiRouter(services: Services, options: ApiOptions): Router {
  return operationsRouter({
    reads: services.reads,
    auth: services.auth,
    access: services.access,
    publicOrigin: options.publicOrigin,
    bodyLimitBytes: options.bodyLimitBytes,
    onContractViolation: options.onContractViolation,
    handlers: {
      ...metaRoutes(),
      ...authRoutes(services, { secureCookies: options.secureCookies }),
      ...workspaceRoutes(services),
      ...memberRoutes(services),
      ...tokenRoutes(services),
      ...enrollmentRoutes(services),
      ...appRoutes(services),
      ...fileRoutes(services),
      ...githubRoutes(services),
      ...domainRoutes(services),
      ...metricRoutes(services),
      ...databaseRoutes(services),
      ...backupRoutes(services),
      ...backupDestinationRoutes(services),
    },
  });
}
