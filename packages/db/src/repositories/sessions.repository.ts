import type { SessionRepository } from '@slipway/core';
import type { Db } from '../client';

export class PrismaSessionRepository implements SessionRepository {
  constructor(private readonly db: Db) {}

  create(input: { userId: string; tokenHash: Buffer; expiresAt: Date; ip: string | null; userAgent: string | null }): Promise<{ id: string }> {
    return this.db.session.create({ data: { ...input, tokenHash: new Uint8Array(input.tokenHash) }, select: { id: true } });
  }

  async findActive(tokenHash: Buffer, now: Date): Promise<{ id: string; userId: string; lastSeenAt: Date } | null> {
    // One lookup on the unique index of token_hash; hot path of every cookie-authenticated request.
    const rows = await this.db.$queryRaw<{ id: string; user_id: string; last_seen_at: Date }[]>`
      SELECT id, user_id, last_seen_at FROM sessions
      WHERE token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > ${now}`;
    const row = rows[0];
    return row ? { id: row.id, userId: row.user_id, lastSeenAt: row.last_seen_at } : null;
  }

  async touch(sessionId: string, now: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id: sessionId }, data: { lastSeenAt: now } });
  }

  async revoke(sessionId: string, now: Date): Promise<void> {
    await this.db.session.updateMany({ where: { id: sessionId, revokedAt: null }, data: { revokedAt: now } });
  }
}
