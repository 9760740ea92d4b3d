import type { MemberRecord, MemberRepository, QuotaState, Role } from '@slipway/core';
import type { Db } from '../client';
import type { Prisma } from '../generated/client';
import { readQuotaState } from './quota-state';

const MEMBER = { userId: true, role: true, createdAt: true, user: { select: { email: true, name: true } } } as const;
type MemberRow = Prisma.MembershipGetPayload<{ select: typeof MEMBER }>;
const toMember = (m: MemberRow): MemberRecord => ({ userId: m.userId, email: m.user.email, name: m.user.name, role: m.role as Role, createdAt: m.createdAt });

export class PrismaMemberRepository implements MemberRepository {
  constructor(private readonly db: Db) {}

  async list(scope: { workspaceId: string }): Promise<MemberRecord[]> {
    const rows = await this.db.membership.findMany({
      where: { workspaceId: scope.workspaceId, workspace: { deletedAt: null } },
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
      select: MEMBER,
    });
    return rows.map(toMember);
  }

  async find(scope: { workspaceId: string; userId: string }): Promise<MemberRecord | null> {
    const row = await this.db.membership.findFirst({
      where: { workspaceId: scope.workspaceId, userId: scope.userId, workspace: { deletedAt: null } },
      select: MEMBER,
    });
    return row ? toMember(row) : null;
  }

  add(scope: { workspaceId: string; userId: string; role: Role }, decide: (state: QuotaState) => void): Promise<MemberRecord | 'already_member'> {
    return this.db.$transaction(
      async (tx) => {
        const state = await readQuotaState(tx, scope.workspaceId, { lock: true });
        const existing = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: scope.workspaceId, userId: scope.userId } } });
        if (existing) return 'already_member' as const;
        decide(state);
        return toMember(await tx.membership.create({ data: scope, select: MEMBER }));
      },
      TX_OPTIONS,
    );
  }

  changeRole(
    scope: { workspaceId: string; userId: string; role: Role },
    decide: (state: { current: Role; owners: number }) => void,
  ): Promise<MemberRecord | null> {
    return this.db.$transaction(async (tx) => {
      const current = await lockAndRead(tx, scope);
      if (!current) return null;
      decide(current);
      const row = await tx.membership.update({
        where: { workspaceId_userId: { workspaceId: scope.workspaceId, userId: scope.userId } },
        data: { role: scope.role },
        select: MEMBER,
      });
      return toMember(row);
    }, TX_OPTIONS);
  }

  remove(scope: { workspaceId: string; userId: string }, decide: (state: { current: Role; owners: number }) => void, now: Date): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      const current = await lockAndRead(tx, scope);
      if (!current) return false;
      decide(current);
      await tx.membership.delete({ where: { workspaceId_userId: { workspaceId: scope.workspaceId, userId: scope.userId } } });
      await tx.apiToken.updateMany({
        where: { workspaceId: scope.workspaceId, createdById: scope.userId, revokedAt: null },
        data: { revokedAt: now },
      });
      return true;
    }, TX_OPTIONS);
  }
}

/** Locks the workspace row (so owner counts cannot race), then reads the member's role and the owner count. */
async function lockAndRead(tx: Prisma.TransactionClient, scope: { workspaceId: string; userId: string }): Promise<{ current: Role; owners: number } | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM workspaces WHERE id = ${scope.workspaceId}::uuid AND deleted_at IS NULL FOR UPDATE`;
  if (locked.length === 0) return null;
  const rows = await tx.$queryRaw<{ role: Role | null; owners: number }[]>`
    SELECT (SELECT role FROM memberships WHERE workspace_id = ${scope.workspaceId}::uuid AND user_id = ${scope.userId}::uuid) AS role,
           (SELECT COUNT(*)::int FROM memberships WHERE workspace_id = ${scope.workspaceId}::uuid AND role = 'owner') AS owners`;
  const row = rows[0]!;
  return row.role ? { current: row.role, owners: row.owners } : null;
}

/** Lock waits queue behind each other under load: allow more than Prisma's 2 s default to get a connection. */
export const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;
