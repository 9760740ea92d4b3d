import type { Db } from '../client';
import type { SqlPool } from '../sql-pool';
import { PrismaAppRepository, PrismaDeploymentRepository, PrismaEnvRepository } from './apps.repository';
import { PrismaMemberRepository } from './members.repository';
import { PrismaTeardownRepository } from './teardown.repository';
import { PrismaPlanRepository } from './plans.repository';
import { PrismaReservationRepository } from './reservations.repository';
import { PrismaSessionRepository } from './sessions.repository';
import { PrismaApiTokenRepository } from './tokens.repository';
import { PrismaUserRepository } from './users.repository';
import { PrismaWorkspaceRepository } from './workspaces.repository';

export type Repositories = ReturnType<typeof createRepositories>;

/**
 * Every repository over one Prisma client and one plain pool (for the per-request lookups): the composition roots
 * (API, worker) pass these to the core services.
 */
export function createRepositories(db: Db, sql: SqlPool) {
  return {
    users: new PrismaUserRepository(db),
    sessions: new PrismaSessionRepository(db, sql),
    tokens: new PrismaApiTokenRepository(db, sql),
    workspaces: new PrismaWorkspaceRepository(db, sql),
    members: new PrismaMemberRepository(db),
    reservations: new PrismaReservationRepository(db),
    plans: new PrismaPlanRepository(db),
    teardown: new PrismaTeardownRepository(db),
    apps: new PrismaAppRepository(db),
    env: new PrismaEnvRepository(db),
    deployments: new PrismaDeploymentRepository(db),
  };
}

export {
  PrismaAppRepository,
  PrismaDeploymentRepository,
  PrismaEnvRepository,
  PrismaApiTokenRepository,
  PrismaMemberRepository,
  PrismaPlanRepository,
  PrismaReservationRepository,
  PrismaSessionRepository,
  PrismaTeardownRepository,
  PrismaUserRepository,
  PrismaWorkspaceRepository,
};
