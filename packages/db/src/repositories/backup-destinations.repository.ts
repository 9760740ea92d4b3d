import type { BackupDestinationFields, BackupDestinationRecord, BackupDestinationRepository } from '@slipway/core';
import type { Db } from '../client';
import { isUniqueViolation } from './errors';

/** Backup destinations (issue 33). One default per workspace: setting one clears the others in the same transaction. */
export class PrismaBackupDestinationRepository implements BackupDestinationRepository {
  constructor(private readonly db: Db) {}

  async create(workspaceId: string, fields: BackupDestinationFields): Promise<BackupDestinationRecord | null> {
    try {
      return await this.db.$transaction(async (tx) => {
        if (fields.isDefault) await tx.backupDestination.updateMany({ where: { workspaceId, isDefault: true }, data: { isDefault: false } });
        return tx.backupDestination.create({ data: { workspaceId, ...fields } });
      });
    } catch (e) {
      if (isUniqueViolation(e)) return null;
      throw e;
    }
  }

  list(workspaceId: string): Promise<BackupDestinationRecord[]> {
    return this.db.backupDestination.findMany({ where: { workspaceId }, orderBy: { name: 'asc' } });
  }

  find(scope: { workspaceId: string; destinationId: string }): Promise<BackupDestinationRecord | null> {
    return this.db.backupDestination.findFirst({ where: { id: scope.destinationId, workspaceId: scope.workspaceId } });
  }

  async update(
    scope: { workspaceId: string; destinationId: string },
    changes: Partial<BackupDestinationFields>,
  ): Promise<BackupDestinationRecord | 'not_found' | 'name_taken'> {
    try {
      return await this.db.$transaction(async (tx) => {
        const where = { id: scope.destinationId, workspaceId: scope.workspaceId };
        if (!(await tx.backupDestination.findFirst({ where, select: { id: true } }))) return 'not_found' as const;
        if (changes.isDefault) {
          await tx.backupDestination.updateMany({ where: { workspaceId: scope.workspaceId, isDefault: true, id: { not: scope.destinationId } }, data: { isDefault: false } });
        }
        return tx.backupDestination.update({ where: { id: scope.destinationId }, data: changes });
      });
    } catch (e) {
      if (isUniqueViolation(e)) return 'name_taken';
      throw e;
    }
  }

  async remove(scope: { workspaceId: string; destinationId: string }): Promise<boolean> {
    const { count } = await this.db.backupDestination.deleteMany({ where: { id: scope.destinationId, workspaceId: scope.workspaceId } });
    return count > 0;
  }

  async ofDatabase(scope: { workspaceId: string; databaseId: string }): Promise<{ named: BackupDestinationRecord | null; workspaceDefault: BackupDestinationRecord | null } | null> {
    const database = await this.db.database.findFirst({
      where: { id: scope.databaseId, workspaceId: scope.workspaceId, deletedAt: null },
      select: { backupDestination: true },
    });
    if (!database) return null;
    const workspaceDefault = await this.db.backupDestination.findFirst({ where: { workspaceId: scope.workspaceId, isDefault: true } });
    return { named: database.backupDestination, workspaceDefault };
  }

  async nameForDatabase(scope: { workspaceId: string; databaseId: string }, destinationId: string | null): Promise<boolean> {
    const { count } = await this.db.database.updateMany({
      where: { id: scope.databaseId, workspaceId: scope.workspaceId, deletedAt: null },
      data: { backupDestinationId: destinationId },
    });
    return count > 0;
  }
}
