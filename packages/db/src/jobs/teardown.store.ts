import type { TeardownStore } from '@slipway/core';
import type { Db } from '../client';

/** The purge of a deleted workspace (the `workspace.teardown` job): keyed by the workspace the operation row names. */
export class PrismaTeardownStore implements TeardownStore {
  constructor(private readonly db: Db) {}

  async isDeleted(scope: { workspaceId: string }): Promise<boolean> {
    return (await this.db.workspace.count({ where: { id: scope.workspaceId, deletedAt: { not: null } } })) > 0;
  }

  async appIds(scope: { workspaceId: string }): Promise<string[]> {
    return (await this.db.app.findMany({ where: { workspaceId: scope.workspaceId }, select: { id: true }, orderBy: { id: 'asc' } })).map((a) => a.id);
  }

  async purge(scope: { workspaceId: string }, now: Date): Promise<{ apps: number; tokens: number; memberships: number; reservations: number }> {
    const where = { workspaceId: scope.workspaceId };
    const [apps, tokens, memberships, reservations] = await this.db.$transaction([
      // As an app's own deletion does: the row stays, its subdomain is free for others.
      this.db.app.updateMany({ where: { ...where, deletedAt: null }, data: { deletedAt: now, subdomain: null, desiredState: 'stopped', updatedAt: now } }),
      this.db.apiToken.deleteMany({ where }),
      this.db.membership.deleteMany({ where }),
      this.db.reservation.deleteMany({ where }),
    ]);
    return { apps: apps.count, tokens: tokens.count, memberships: memberships.count, reservations: reservations.count };
  }
}
