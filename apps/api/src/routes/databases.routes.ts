import type { DatabaseCertificates, DatabaseService } from '@slipway/core';
import { AppError } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

/** Managed databases (issue 12): thin handlers over DatabaseService; the CA certificate is served as a PEM file. */
export function databaseRoutes(s: { databases: DatabaseService; databaseCertificates: DatabaseCertificates | null }): HandlerTable {
  return {
    listDatabaseEngines: async () => ({ data: await s.databases.engines() }),
    getDatabaseCaCertificate: async ({ res }) => {
      if (!s.databaseCertificates) throw new AppError('service_unavailable', 'This API was started without a data directory');
      const pem = await s.databaseCertificates.caCertificate();
      res.status(200);
      res.setHeader('Content-Type', 'application/x-pem-file');
      res.setHeader('Content-Disposition', 'attachment; filename="slipway-databases-ca.pem"');
      res.end(pem);
    },
    listDatabases: async ({ access }) => ({ data: await s.databases.list(access) }),
    createDatabase: ({ access, body }) => s.databases.create(access, body),
    getDatabase: ({ access, params }) => s.databases.get(access, params.databaseId),
    updateDatabase: ({ access, params, body }) => s.databases.update(access, params.databaseId, body),
    deleteDatabase: async ({ access, params }) => {
      await s.databases.remove(access, params.databaseId);
      return { ok: true };
    },
    stopDatabase: ({ access, params }) => s.databases.stop(access, params.databaseId),
    startDatabase: ({ access, params }) => s.databases.start(access, params.databaseId),
    rotateDatabasePassword: ({ access, params }) => s.databases.rotatePassword(access, params.databaseId),
    connectDatabase: ({ access, params, body }) => s.databases.connect(access, params.databaseId, body),
    getDatabaseConnection: ({ access, params }) => s.databases.connection(access, params.databaseId),
    listDatabaseEvents: ({ access, params }) => s.databases.events(access, params.databaseId),
    putDatabasePublic: ({ access, params, body }) => s.databases.setPublic(access, params.databaseId, body),
  };
}
