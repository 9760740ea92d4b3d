import type { ApiTokenRecord, ApiTokenRepository } from '@slipway/core';
import type { Db } from '../client';

const TOKEN = {
  id: true,
  workspaceId: true,
  name: true,
  prefix: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  createdBy: { select: { id: true, name: true } },
} as const;

export class PrismaApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly db: Db) {}

  create(input: { workspaceId: string; createdById: string; name: string; tokenHash: Buffer; prefix: string; expiresAt: Date | null }): Promise<ApiTokenRecord> {
    return this.db.apiToken.create({ data: { ...input, tokenHash: new Uint8Array(input.tokenHash) }, select: TOKEN });
  }

  async findActive(tokenHash: Buffer, now: Date): Promise<{ id: string; workspaceId: string; userId: string; lastUsedAt: Date | null } | null> {
    // One query: the token, its workspace still live, and its creator still a member there.
    const rows = await this.db.$queryRaw<{ id: string; workspace_id: string; created_by_id: string; last_used_at: Date | null }[]>`
      SELECT t.id, t.workspace_id, t.created_by_id, t.last_used_at
      FROM api_tokens t
      JOIN workspaces w ON w.id = t.workspace_id AND w.deleted_at IS NULL
      JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.created_by_id
      WHERE t.token_hash = ${tokenHash} AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ${now})`;
    const row = rows[0];
    return row ? { id: row.id, workspaceId: row.workspace_id, userId: row.created_by_id, lastUsedAt: row.last_used_at } : null;
  }

  async touch(scope: { workspaceId: string; tokenId: string }, now: Date): Promise<void> {
    await this.db.apiToken.updateMany({ where: { id: scope.tokenId, workspaceId: scope.workspaceId }, data: { lastUsedAt: now } });
  }

  list(scope: { workspaceId: string; createdById?: string }): Promise<ApiTokenRecord[]> {
    return this.db.apiToken.findMany({
      where: { workspaceId: scope.workspaceId, revokedAt: null, ...(scope.createdById ? { createdById: scope.createdById } : {}) },
      orderBy: { id: 'asc' },
      select: TOKEN,
    });
  }

  async revoke(scope: { workspaceId: string; tokenId: string; createdById?: string }, now: Date): Promise<boolean> {
    const { count } = await this.db.apiToken.updateMany({
      where: { id: scope.tokenId, workspaceId: scope.workspaceId, revokedAt: null, ...(scope.createdById ? { createdById: scope.createdById } : {}) },
      data: { revokedAt: now },
    });
    return count > 0;
  }
}
