import { AppError, type QuotaState } from '@slipway/core';
import type { Prisma } from '../generated/client';

type Tx = Prisma.TransactionClient;

/**
 * Reads a workspace's plan limits, extras and usage. With `lock`, the workspace row is locked FOR UPDATE first, so
 * every later statement of the transaction sees what earlier lock holders committed: this is what serialises
 * concurrent reservations and member additions of one workspace. `excludeResourceId` leaves that resource's own
 * reservation out of the usage (a resize replaces it).
 */
export async function readQuotaState(tx: Tx, workspaceId: string, options: { lock: boolean; excludeResourceId?: string }): Promise<QuotaState> {
  const head = options.lock
    ? await tx.$queryRaw<LimitRow[]>`
        SELECT p.cpu_millis, p.memory_mb, p.max_members, p.disk_mb, w.extra_cpu_millis, w.extra_memory_mb, w.extra_members
        FROM workspaces w JOIN plans p ON p.id = w.plan_id
        WHERE w.id = ${workspaceId}::uuid AND w.deleted_at IS NULL
        FOR UPDATE OF w`
    : await tx.$queryRaw<LimitRow[]>`
        SELECT p.cpu_millis, p.memory_mb, p.max_members, p.disk_mb, w.extra_cpu_millis, w.extra_memory_mb, w.extra_members
        FROM workspaces w JOIN plans p ON p.id = w.plan_id
        WHERE w.id = ${workspaceId}::uuid AND w.deleted_at IS NULL`;
  const limits = head[0];
  if (!limits) throw new AppError('not_found', 'The workspace was not found');
  const exclude = options.excludeResourceId ?? '00000000-0000-0000-0000-000000000000';
  const [usage] = await tx.$queryRaw<UsageRow[]>`
    SELECT
      (SELECT COALESCE(SUM(cpu_millis), 0)::int FROM reservations WHERE workspace_id = ${workspaceId}::uuid AND resource_id <> ${exclude}::uuid) AS cpu,
      (SELECT COALESCE(SUM(memory_mb), 0)::int FROM reservations WHERE workspace_id = ${workspaceId}::uuid AND resource_id <> ${exclude}::uuid) AS memory,
      (SELECT COALESCE(SUM(disk_mb), 0)::int FROM reservations WHERE workspace_id = ${workspaceId}::uuid AND resource_id <> ${exclude}::uuid) AS disk,
      (SELECT COUNT(*)::int FROM memberships WHERE workspace_id = ${workspaceId}::uuid) AS members`;
  return {
    plan: { cpuMillis: limits.cpu_millis, memoryMb: limits.memory_mb, maxMembers: limits.max_members, diskMb: limits.disk_mb },
    extras: { cpuMillis: limits.extra_cpu_millis, memoryMb: limits.extra_memory_mb, members: limits.extra_members },
    usage: { cpuMillis: usage!.cpu, memoryMb: usage!.memory, diskMb: usage!.disk, members: usage!.members },
  };
}

interface LimitRow {
  cpu_millis: number;
  memory_mb: number;
  max_members: number;
  disk_mb: number | null;
  extra_cpu_millis: number;
  extra_memory_mb: number;
  extra_members: number;
}

interface UsageRow {
  cpu: number;
  memory: number;
  disk: number;
  members: number;
}
