import type { Pool } from 'pg';
import type { Db } from '../client';
import { PrismaEnrollmentTokenRepository, PrismaNodeRepository } from './nodes.repository';
import { PrismaOperationStore, PrismaOwnerRepository } from './operations.repository';

/**
 * The repositories of nodes, enrollment and agent operations, over one client. With a node-postgres pool,
 * the operation statements of the dispatch path run on it.
 */
export function createAgentRepositories(db: Db, sql?: Pool) {
  return {
    nodes: new PrismaNodeRepository(db),
    enrollmentTokens: new PrismaEnrollmentTokenRepository(db),
    operationStore: new PrismaOperationStore(db, sql),
    owners: new PrismaOwnerRepository(db),
  };
}

export type AgentRepositories = ReturnType<typeof createAgentRepositories>;
export { PrismaEnrollmentTokenRepository, PrismaNodeRepository, PrismaOperationStore, PrismaOwnerRepository };
