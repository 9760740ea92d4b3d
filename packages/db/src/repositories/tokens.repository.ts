import type { ActiveApiToken, ApiTokenRecord, ApiTokenRepository } from '@slipway/core';
import type { Db } from '../client';
import { readThrough, type Loaded, type ReadCache } from '../read-cache';
import type { SqlPool } from '../sql-pool';
import { fromRow, WORKSPACE_COLUMNS, type MemberWorkspaceRow } from './workspaces.repository';

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
  constructor(
    private readonly db: Db,
    private readonly sql: SqlPool,
    private readonly reads?: ReadCache,
  ) {}

  create(input: { workspaceId: string; createdById: string; name: string; tokenHash: Buffer; prefix: string; expiresAt: Date | null }): Promise<ApiTokenRecord> {
    return this.db.apiToken.create({ data: { ...input, tokenHash: new Uint8Array(input.tokenHash) }, select: TOKEN });
  }

  async findActive(tokenHash: Buffer, now: Date): Promise<ActiveApiToken | null> {
    return readThrough(this.reads, `token:${tokenHash.toString('base64')}`, now.getTime(), () => this.load(tokenHash, now));
  }

  private async load(tokenHash: Buffer, now: Date): Promise<Loaded<ActiveApiToken> | null> {
    // One statement: the token, its workspace still live, and its creator's membership there (which gives the role).
    const { rows } = await this.sql.query<{ token_id: string; created_by_id: string; last_used_at: Date | null; expires_at: Date | null } & MemberWorkspaceRow>({
      name: 'api_token_by_hash',
      text: `SELECT t.id AS token_id, t.created_by_id, t.last_used_at, t.expires_at, ${WORKSPACE_COLUMNS}, m.role
             FROM api_tokens t
             JOIN workspaces w ON w.id = t.workspace_id AND w.deleted_at IS NULL
             JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.created_by_id
             WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)`,
      values: [tokenHash, now],
    });
    const row = rows[0];
    if (!row) return null;
    const workspace = fromRow(row);
    return {
      value: { id: row.token_id, workspaceId: row.id, userId: row.created_by_id, lastUsedAt: row.last_used_at, membership: { workspaceId: row.id, workspace } },
      tags: [`token:${row.token_id}`, `user:${row.created_by_id}`, `ws:${row.id}`, ...(workspace.nodeId ? [`node:${workspace.nodeId}`] : [])],
      ...(row.expires_at ? { until: row.expires_at.getTime() } : {}),
    };
  }

  async touch(scope: { workspaceId: string; tokenId: string }, now: Date): Promise<void> {
    await this.db.apiToken.updateMany({ where: { id: scope.tokenId, workspaceId: scope.workspaceId }, data: { lastUsedAt: now } });
    this.reads?.touched([`token:${scope.tokenId}`]);
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
    this.reads?.touched([`token:${scope.tokenId}`]);
    return count > 0;
  }
}
