import type { ResourceEventReader, ResourceEventRecord } from '@slipway/core';
import type { Db } from '../client';

/** The events of apps and databases (issue 32), newest first, scoped by workspace. */
export class PrismaResourceEventReader implements ResourceEventReader {
  constructor(private readonly db: Db) {}

  async list(scope: { workspaceId: string; resourceId: string }, limit: number): Promise<ResourceEventRecord[]> {
    const rows = await this.db.resourceEvent.findMany({
      where: { workspaceId: scope.workspaceId, resourceId: scope.resourceId },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: limit,
    });
    return rows.map((r) => ({ id: r.id, kind: r.kind as ResourceEventRecord['kind'], message: r.message, at: r.at }));
  }
}
