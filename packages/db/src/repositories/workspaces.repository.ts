import type { NewWorkspace, NodeCapacity, Role, WorkspaceRecord, WorkspaceRepository, WorkspaceWithRole } from '@slipway/core';
import type { Db } from '../client';
import type { SqlPool } from '../sql-pool';
import type { Workspace } from '../generated/client';
import { isNotFound, isUniqueViolation } from './errors';

export const toWorkspaceRecord = (w: Workspace): WorkspaceRecord => ({
  id: w.id,
  name: w.name,
  slug: w.slug,
  planId: w.planId,
  billingStatus: w.billingStatus,
  trialEndsAt: w.trialEndsAt,
  graceEndsAt: w.graceEndsAt,
  suspendedAt: w.suspendedAt,
  extras: { cpuMillis: w.extraCpuMillis, memoryMb: w.extraMemoryMb, members: w.extraMembers },
  nodeId: w.nodeId,
  createdAt: w.createdAt,
});

export interface MemberWorkspaceRow {
  id: string;
  name: string;
  slug: string;
  plan_id: string;
  billing_status: string;
  trial_ends_at: Date;
  grace_ends_at: Date;
  suspended_at: Date | null;
  extra_cpu_millis: number;
  extra_memory_mb: number;
  extra_members: number;
  node_id: string | null;
  node_unreachable_since?: Date | null;
  created_at: Date;
  role: Role;
}

export const fromRow = (r: MemberWorkspaceRow): WorkspaceWithRole => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  planId: r.plan_id,
  billingStatus: r.billing_status,
  trialEndsAt: r.trial_ends_at,
  graceEndsAt: r.grace_ends_at,
  suspendedAt: r.suspended_at,
  extras: { cpuMillis: r.extra_cpu_millis, memoryMb: r.extra_memory_mb, members: r.extra_members },
  nodeId: r.node_id,
  nodeUnreachableSince: r.node_unreachable_since ?? null,
  createdAt: r.created_at,
  role: r.role,
});

export const WORKSPACE_COLUMNS = `w.id, w.name, w.slug, w.plan_id, w.billing_status, w.trial_ends_at, w.grace_ends_at, w.suspended_at,
  w.extra_cpu_millis, w.extra_memory_mb, w.extra_members, w.node_id, w.created_at,
  (SELECT n.unreachable_since FROM nodes n WHERE n.id = w.node_id) AS node_unreachable_since`;

export class PrismaWorkspaceRepository implements WorkspaceRepository {
  constructor(
    private readonly db: Db,
    private readonly sql: SqlPool,
  ) {}

  async listForUser(userId: string): Promise<WorkspaceWithRole[]> {
    const rows = await this.db.$queryRaw<MemberWorkspaceRow[]>`
      SELECT w.id, w.name, w.slug, w.plan_id, w.billing_status, w.trial_ends_at, w.grace_ends_at, w.suspended_at,
             w.extra_cpu_millis, w.extra_memory_mb, w.extra_members, w.node_id, w.created_at, m.role,
             (SELECT n.unreachable_since FROM nodes n WHERE n.id = w.node_id) AS node_unreachable_since
      FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ${userId}::uuid AND w.deleted_at IS NULL
      ORDER BY w.id`;
    return rows.map(fromRow);
  }

  async findForMember(scope: { workspaceId: string; userId: string }): Promise<WorkspaceWithRole | null> {
    // One query by the memberships primary key: the authorization layer runs it on every workspace request.
    const { rows } = await this.sql.query<MemberWorkspaceRow>({
      name: 'workspace_for_member',
      text: `SELECT ${WORKSPACE_COLUMNS}, m.role
             FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
             WHERE m.workspace_id = $1 AND m.user_id = $2 AND w.deleted_at IS NULL`,
      values: [scope.workspaceId, scope.userId],
    });
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async create(input: NewWorkspace): Promise<WorkspaceRecord | null> {
    const { ownerId, ...data } = input;
    try {
      const w = await this.db.workspace.create({ data: { ...data, memberships: { create: { userId: ownerId, role: 'owner' } } } });
      return toWorkspaceRecord(w);
    } catch (e) {
      if (isUniqueViolation(e)) return null;
      throw e;
    }
  }

  async update(scope: { workspaceId: string }, changes: { name?: string; slug?: string }): Promise<WorkspaceRecord | 'slug_taken' | null> {
    try {
      const w = await this.db.workspace.update({ where: { id: scope.workspaceId, deletedAt: null }, data: changes });
      return toWorkspaceRecord(w);
    } catch (e) {
      if (isUniqueViolation(e)) return 'slug_taken';
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  markDeleted(scope: { workspaceId: string }, operation: { kind: string }, now: Date): Promise<{ operationId: string } | null> {
    return this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ node_id: string | null }[]>`
        UPDATE workspaces SET deleted_at = ${now}, updated_at = ${now}
        WHERE id = ${scope.workspaceId}::uuid AND deleted_at IS NULL
        RETURNING node_id`;
      if (rows.length === 0) return null;
      const op = await tx.operation.create({
        data: { workspaceId: scope.workspaceId, nodeId: rows[0]!.node_id, kind: operation.kind, payload: { workspaceId: scope.workspaceId } },
        select: { id: true },
      });
      return { operationId: op.id };
    });
  }

  async onlineNodes(): Promise<NodeCapacity[]> {
    // Each live workspace reserves what its apps and databases reserve, and at least its plan's first app: an empty
    // workspace is about to hold one, so empty workspaces spread over the servers too.
    const rows = await this.db.$queryRaw<
      { id: string; name: string; cpu_millis: number; memory_mb: number; reserved_cpu: number; reserved_memory: number; cordoned: boolean; disk_free_mb: number | null; disk_reserve_mb: number | null }[]
    >`
      SELECT n.id, n.name, n.cpu_millis, n.memory_mb, n.cordoned_at IS NOT NULL AS cordoned, n.disk_free_mb, n.disk_reserve_mb,
             COALESCE(SUM(w.cpu), 0)::int AS reserved_cpu, COALESCE(SUM(w.mem), 0)::int AS reserved_memory
      FROM nodes n
      LEFT JOIN (
        SELECT w.node_id,
               GREATEST(COALESCE(SUM(r.cpu_millis), 0), COALESCE((p.minimums->'app'->>'cpuMillis')::int, 0)) AS cpu,
               GREATEST(COALESCE(SUM(r.memory_mb), 0), COALESCE((p.minimums->'app'->>'memoryMb')::int, 0)) AS mem
        FROM workspaces w
        JOIN plans p ON p.id = w.plan_id
        LEFT JOIN reservations r ON r.workspace_id = w.id
        WHERE w.deleted_at IS NULL
        GROUP BY w.id, w.node_id, p.minimums
      ) w ON w.node_id = n.id
      WHERE n.status = 'online'
      GROUP BY n.id`;
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      cpuMillis: r.cpu_millis,
      memoryMb: r.memory_mb,
      reservedCpuMillis: r.reserved_cpu,
      reservedMemoryMb: r.reserved_memory,
      cordoned: r.cordoned,
      disk: r.disk_free_mb !== null && r.disk_reserve_mb !== null ? { freeMb: r.disk_free_mb, reserveMb: r.disk_reserve_mb } : null,
    }));
  }

  async suspendExpired(now: Date): Promise<string[]> {
    const rows = await this.db.$queryRaw<{ id: string }[]>`
      UPDATE workspaces SET suspended_at = ${now}, updated_at = ${now}
      WHERE grace_ends_at <= ${now} AND billing_status <> 'active' AND suspended_at IS NULL AND deleted_at IS NULL
      RETURNING id`;
    return rows.map((r) => r.id).sort();
  }
}
