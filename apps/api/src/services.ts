// Composition of the core services over the repositories and adapters. main.ts, the tests and the benchmark
// build the API from here, so they run the very same wiring.
import {
  AccessService,
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
  WorkspaceTeardownService,
  type Clock,
  type JobQueue,
  type Logger,
  type LoginThrottleLimits,
  type PasswordHasher,
  type PlanEntry,
} from '@slipway/core';
import { createAgentRepositories, createRepositories, PrismaOperationStore, type Db, type SqlPool } from '@slipway/db';
import type Redis from 'ioredis';
import type { Router } from 'express';
import { RedisRateCounter } from './adapters/redis-rate-counter';
import { operationsRouter, type ContractViolation } from './http/operations';
import { certificateAuthorityOf } from './nodes/certificate-authority';
import { enrollmentRoutes } from './nodes/enrollment.routes';
import { authRoutes } from './routes/auth.routes';
import { memberRoutes } from './routes/members.routes';
import { metaRoutes } from './routes/meta.routes';
import { tokenRoutes } from './routes/tokens.routes';
import { workspaceRoutes } from './routes/workspaces.routes';

export interface ServiceDeps {
  db: Db;
  /** Plain pool for the per-request lookups (createSqlPool). */
  sql: SqlPool;
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
}

export type Services = ReturnType<typeof createServices>;

export function createServices(deps: ServiceDeps) {
  const repos = createRepositories(deps.db, deps.sql);
  const agentRepos = createAgentRepositories(deps.db);
  const clock = deps.clock ?? systemClock;
  const secrets = new SecretHasher(deps.sessionKey);
  const throttle = new LoginThrottle(new RedisRateCounter(deps.redis, deps.redisPrefix), deps.loginLimits);
  return {
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
    quota: new QuotaService(repos.reservations),
    teardown: new WorkspaceTeardownService({ teardown: repos.teardown, operations: new PrismaOperationStore(deps.db), clock, logger: deps.logger }),
    enforcement: new PlanEnforcementService({ workspaces: repos.workspaces, logger: deps.logger }),
    enrollment: new EnrollmentService({ tokens: agentRepos.enrollmentTokens, nodes: agentRepos.nodes, ca: certificateAuthorityOf(deps.dataDir) }),
  };
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
    },
  });
}
