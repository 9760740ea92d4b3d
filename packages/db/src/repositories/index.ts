import type { Db } from '../client';
import type { ReadCache } from '../read-cache';
import type { SqlPool } from '../sql-pool';
import { PrismaAppRepository } from './apps.repository';
import { PrismaBackupDestinationRepository } from './backup-destinations.repository';
import { PrismaBackupRepository } from './backups.repository';
import { PrismaDatabaseRepository } from './databases.repository';
import { PrismaDeploymentRepository } from './deployments.repository';
import { PrismaDomainRepository } from './domains.repository';
import { PrismaEnvRepository } from './env.repository';
import { PrismaMemberRepository } from './members.repository';
import { PrismaOperationRecorder } from './operations.repository';
import { PrismaPlanRepository } from './plans.repository';
import { PrismaReservationRepository } from './reservations.repository';
import { PrismaSessionRepository } from './sessions.repository';
import { PrismaApiTokenRepository } from './tokens.repository';
import { PrismaUserRepository } from './users.repository';
import { PrismaGithubDeliveryRepository, PrismaGithubInstallationRepository } from './github.repository';
import { PrismaWorkspaceRepository } from './workspaces.repository';

export type Repositories = ReturnType<typeof createRepositories>;

/**
 * The request-side repositories over one Prisma client and one plain pool (for the per-request lookups): every method
 * takes the workspace. The composition roots (API, worker) pass these to the core services; the job-side stores keyed
 * by row id are `createJobStores` (src/jobs), which only the worker composes. With `reads` (the API's), the
 * credential and app reads are served from memory while PostgreSQL's notifications keep it true (read-cache.ts).
 */
export function createRepositories(db: Db, sql: SqlPool, reads?: ReadCache) {
  return {
    users: new PrismaUserRepository(db),
    sessions: new PrismaSessionRepository(db, sql, reads),
    tokens: new PrismaApiTokenRepository(db, sql, reads),
    workspaces: new PrismaWorkspaceRepository(db, sql),
    members: new PrismaMemberRepository(db),
    reservations: new PrismaReservationRepository(db),
    plans: new PrismaPlanRepository(db),
    apps: new PrismaAppRepository(db, sql, reads),
    env: new PrismaEnvRepository(db),
    deployments: new PrismaDeploymentRepository(db),
    operations: new PrismaOperationRecorder(db),
    domains: new PrismaDomainRepository(db),
    githubInstallations: new PrismaGithubInstallationRepository(db),
    githubDeliveries: new PrismaGithubDeliveryRepository(db),
    databases: new PrismaDatabaseRepository(db),
    backups: new PrismaBackupRepository(db),
    backupDestinations: new PrismaBackupDestinationRepository(db),
  };
}

export {
  PrismaAppRepository,
  PrismaBackupRepository,
  PrismaBackupDestinationRepository,
  PrismaDatabaseRepository,
  PrismaDeploymentRepository,
  PrismaEnvRepository,
  PrismaApiTokenRepository,
  PrismaMemberRepository,
  PrismaOperationRecorder,
  PrismaPlanRepository,
  PrismaReservationRepository,
  PrismaSessionRepository,
  PrismaUserRepository,
  PrismaWorkspaceRepository,
  PrismaDomainRepository,
  PrismaGithubInstallationRepository,
  PrismaGithubDeliveryRepository,
};
