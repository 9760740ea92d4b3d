import type { ActiveSession, SessionRepository } from '@slipway/core';
import type { Db } from '../client';
import { readThrough, type Loaded, type ReadCache } from '../read-cache';
import type { SqlPool } from '../sql-pool';
import { fromRow, WORKSPACE_COLUMNS, type MemberWorkspaceRow } from './workspaces.repository';

type SessionRow = { session_id: string; user_id: string; last_seen_at: Date; expires_at: Date } & MemberWorkspaceRow;

export class PrismaSessionRepository implements SessionRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: SqlPool,
    private readonly reads?: ReadCache,
  ) {}

  create(input: { userId: string; tokenHash: Buffer; expiresAt: Date; ip: string | null; userAgent: string | null }): Promise<{ id: string }> {
    return this.db.session.create({ data: { ...input, tokenHash: new Uint8Array(input.tokenHash) }, select: { id: true } });
  }

  async findActive(tokenHash: Buffer, now: Date, workspaceId?: string): Promise<ActiveSession | null> {
    return readThrough(this.reads, `session:${tokenHash.toString('base64')}:${workspaceId ?? ''}`, now.getTime(), () => this.load(tokenHash, now, workspaceId));
  }

  private async load(tokenHash: Buffer, now: Date, workspaceId?: string): Promise<Loaded<ActiveSession> | null> {
    // The hot path of every cookie-authenticated request: one statement on the unique index of token_hash that
    // also reads the user's membership of the workspace the request names (by the memberships primary key).
    const { rows } = await this.sql.query<SessionRow>({
      name: 'session_by_hash',
      text: `SELECT s.id AS session_id, s.user_id, s.last_seen_at, s.expires_at, ${WORKSPACE_COLUMNS}, m.role
             FROM sessions s
             LEFT JOIN memberships m ON m.user_id = s.user_id AND m.workspace_id = $3
             LEFT JOIN workspaces w ON w.id = m.workspace_id AND w.deleted_at IS NULL
             WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2`,
      values: [tokenHash, now, workspaceId ?? null],
    });
    const row = rows[0];
    if (!row) return null;
    const workspace = row.id ? fromRow(row) : null;
    return {
      value: {
        id: row.session_id,
        userId: row.user_id,
        lastSeenAt: row.last_seen_at,
        ...(workspaceId ? { membership: { workspaceId, workspace } } : {}),
      },
      // What the answer depends on: the session, its user, the workspace and membership named, that workspace's server.
      tags: [`session:${row.session_id}`, `user:${row.user_id}`, ...(workspaceId ? [`ws:${workspaceId}`] : []), ...(workspace?.nodeId ? [`node:${workspace.nodeId}`] : [])],
      until: row.expires_at.getTime(),
    };
  }

  async touch(sessionId: string, now: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id: sessionId }, data: { lastSeenAt: now } });
    this.reads?.touched([`session:${sessionId}`]);
  }

  async revoke(sessionId: string, now: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: now } });
    this.reads?.touched([`session:${sessionId}`]);
  }
}
