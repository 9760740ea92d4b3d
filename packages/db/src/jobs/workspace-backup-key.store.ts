import type { WorkspaceBackupKeyStore } from '@slipway/core';
import type { Db } from '../client';

/** Per-workspace backup keys (issue 33): the first key inserted wins (ON CONFLICT DO NOTHING, then read). */
export class PrismaWorkspaceBackupKeyStore implements WorkspaceBackupKeyStore {
  constructor(private readonly db: Db) {}

  async keep(workspaceId: string, sealed: string): Promise<string> {
    await this.db.$executeRaw`INSERT INTO workspace_backup_keys (workspace_id, key_sealed) VALUES (${workspaceId}::uuid, ${sealed}) ON CONFLICT (workspace_id) DO NOTHING`;
    const row = await this.db.workspaceBackupKey.findUniqueOrThrow({ where: { workspaceId }, select: { keySealed: true } });
    return row.keySealed;
  }
}
