import type { BackupDestinationService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

/** Backup destinations (issue 33): thin handlers over BackupDestinationService. */
export function backupDestinationRoutes(s: { backupDestinations: BackupDestinationService }): HandlerTable {
  return {
    listBackupDestinations: async ({ access }) => ({ data: await s.backupDestinations.list(access) }),
    createBackupDestination: ({ access, body }) => s.backupDestinations.create(access, body),
    getBackupDestination: ({ access, params }) => s.backupDestinations.get(access, params.destinationId),
    updateBackupDestination: ({ access, params, body }) => s.backupDestinations.update(access, params.destinationId, body),
    deleteBackupDestination: async ({ access, params }) => {
      await s.backupDestinations.remove(access, params.destinationId);
      return { ok: true };
    },
    testBackupDestination: ({ access, params }) => s.backupDestinations.test(access, params.destinationId),
    getDatabaseBackupDestination: ({ access, params }) => s.backupDestinations.ofDatabase(access, params.databaseId),
    setDatabaseBackupDestination: ({ access, params, body }) => s.backupDestinations.setForDatabase(access, params.databaseId, body.destinationId),
  };
}
