import type { Logger } from '@slipway/core';
import type { DatabasesHandlers } from '@slipway/proto';
import type { EnsureDatabaseRequestMessage as EnsureDatabaseRequest__Output } from '@slipway/proto';
import { serve, unary } from '../rpc/handlers';
import type { OperationJournal } from '../rpc/journal';
import type { DatabaseRequest, DatabasesRuntime } from './databases.runtime';

/** The `slipway.agent.v1.Databases` service (databases.proto) over DatabasesRuntime; commands once per operation id. */
export function databasesHandlers(deps: { journal: OperationJournal; databases: DatabasesRuntime; logger: Logger }): DatabasesHandlers {
  const { journal, databases } = deps;
  const ensure = (command: 'EnsureDatabase' | 'StartDatabase', stopped?: boolean) =>
    unary(async (req: EnsureDatabaseRequest__Output) => {
      const { result, replayed } = await journal.run(req.operationId, command, () => databases.ensure(toRequest(req, stopped)));
      return { ...result, replayed };
    });
  return serve<DatabasesHandlers>(deps.logger, {
    EnsureDatabase: ensure('EnsureDatabase'),
    StartDatabase: ensure('StartDatabase', false),

    StopDatabase: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'StopDatabase', () => databases.stopDatabase(req.databaseId));
      return { ...result, replayed };
    }),

    RemoveDatabase: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveDatabase', () => databases.remove(req.databaseId));
      return { ...result, replayed };
    }),

    RotateDatabasePassword: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RotateDatabasePassword', () => databases.rotatePassword(req.databaseId, req.currentPassword, req.newPassword));
      return { ...result, replayed };
    }),

    SetDatabasePublicAccess: unary(async (req) => {
      const access = { enabled: req.public?.enabled ?? false, port: req.public?.port ?? 0, allowedCidrs: [...(req.public?.allowedCidrs ?? [])] };
      const { result, replayed } = await journal.run(req.operationId, 'SetDatabasePublicAccess', () => databases.setPublicAccess(req.databaseId, access));
      return { ...result, replayed };
    }),

    ListDatabases: unary(async (req) => ({ databases: await databases.list(req.workspaceId) })),

    DatabaseEngines: unary(async () => ({
      engines: await Promise.all(
        databases.images().map(async (e) => ({
          ...e,
          available: await databases.imageAvailable(e.image),
          hint: `docker load -i <file>.tar (made with \`docker save ${e.image}\`) or docker pull ${e.image}`,
        })),
      ),
    })),

    GetDatabaseCa: unary(async () => ({ caPem: databases.caPem() })),
  });
}

function toRequest(req: EnsureDatabaseRequest__Output, stopped?: boolean): DatabaseRequest {
  return {
    databaseId: req.databaseId,
    workspaceId: req.workspaceId,
    slug: req.slug,
    engine: req.engine,
    version: req.version,
    image: req.image,
    cpuMillis: req.cpuMillis,
    memoryMb: req.memoryMb,
    diskMb: req.diskMb,
    username: req.username,
    databaseName: req.databaseName,
    password: req.password,
    public: { enabled: req.public?.enabled ?? false, port: req.public?.port ?? 0, allowedCidrs: [...(req.public?.allowedCidrs ?? [])] },
    tls: req.tls && (req.tls.certPem || req.tls.keyPem) ? { certPem: req.tls.certPem, keyPem: req.tls.keyPem } : null,
    stopped: stopped ?? req.stopped,
  };
}
