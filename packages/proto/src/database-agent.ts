import type { DatabaseAgent } from '@slipway/core';
import type { DatabasesPool } from './databases.client';

/** The DatabaseAgent port of @slipway/core over packages/proto's DatabasesPool (the agents' Databases service). */
export function databaseAgentOf(pool: DatabasesPool): DatabaseAgent {
  return {
    databaseEngines: (target) => pool.databaseEngines(target),
    ensureDatabase: (target, input) =>
      pool.ensureDatabase(target, {
        ...input,
        public: input.public ? { enabled: true, port: input.public.port, allowedCidrs: input.public.allowedCidrs } : undefined,
        tls: input.tls ?? undefined,
      }),
    stopDatabase: (target, input) => pool.stopDatabase(target, input),
    rotateDatabasePassword: (target, input) => pool.rotateDatabasePassword(target, input),
    removeDatabase: (target, input) => pool.removeDatabase(target, input),
    listDatabases: (target, input) => pool.listDatabases(target, input.workspaceId ?? ''),
  };
}
