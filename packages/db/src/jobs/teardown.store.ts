import type { TeardownStore } from '@slipway/core';
import type { Db } from '../client';

/** The purge of a deleted workspace (the `workspace.teardown` job): keyed by the workspace the operation row names. */
export class PrismaTeardownStore implements TeardownStore {
  constructor(private readonly db: Db) {}

  async isDeleted(scope: { workspaceId: string }): Promise<boolean> {
    return (await this.db.workspace.count({ where: { id: scope.workspaceId, deletedAt: { not: null } } })) > 0;
  }

  async purge(scope: { workspaceId: string }): Promise<{ tokens: number; memberships: number; reservations: number }> {
    const where = { workspaceId: scope.workspaceId };
    const [tokens, memberships, reservations] = await this.db.$transaction([
      this.db.apiToken.deleteMany({ where }),
      this.db.membership.deleteMany({ where }),
      this.db.reservation.deleteMany({ where }),
    ]);
    return { tokens: tokens.count, memberships: memberships.count, reservations: reservations.count };
  }
}
