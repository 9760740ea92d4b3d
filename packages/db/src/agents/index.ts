import type { Db } from '../client';
import { PrismaEnrollmentTokenRepository, PrismaNodeRepository } from './nodes.repository';
import { PrismaOperationStore, PrismaOwnerRepository } from './operations.repository';

/** The repositories of nodes, enrollment and agent operations (issue #4), over one client. */
export function createAgentRepositories(db: Db) {
  return {
    nodes: new PrismaNodeRepository(db),
    enrollmentTokens: new PrismaEnrollmentTokenRepository(db),
    operationStore: new PrismaOperationStore(db),
    owners: new PrismaOwnerRepository(db),
  };
}

export type AgentRepositories = ReturnType<typeof createAgentRepositories>;
export { PrismaEnrollmentTokenRepository, PrismaNodeRepository, PrismaOperationStore, PrismaOwnerRepository };
