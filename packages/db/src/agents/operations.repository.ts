import type { OperationRecord, OperationStatus, OperationStore, OwnerRepository } from '@slipway/core';
import type { Db } from '../client';
import type { Prisma } from '../generated/client';

type Row = Awaited<ReturnType<Db['operation']['findUnique']>> & object;
const toRecord = (r: Row): OperationRecord => ({
  id: r.id,
  workspaceId: r.workspaceId,
  nodeId: r.nodeId,
  kind: r.kind,
  status: r.status as OperationStatus,
  payload: (r.payload ?? {}) as Record<string, unknown>,
  result: r.result ?? null,
  error: r.error,
  attempts: r.attempts,
  createdAt: r.createdAt,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
});

/** Operation rows of agent commands; every status change is one conditional UPDATE … RETURNING. */
export class PrismaOperationStore implements OperationStore {
  constructor(private readonly db: Db) {}

  async create(input: { kind: string; nodeId: string | null; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord> {
    return toRecord(await this.db.operation.create({ data: { ...input, payload: input.payload as Prisma.InputJsonObject } }));
  }

  async get(operationId: string): Promise<OperationRecord | null> {
    const r = await this.db.operation.findUnique({ where: { id: operationId } });
    return r ? toRecord(r) : null;
  }

  async move(
    operationId: string,
    from: readonly OperationStatus[],
    to: OperationStatus,
    changes: { result?: unknown; error?: string | null; startedAt?: Date; finishedAt?: Date; incrementAttempts?: boolean } = {},
  ): Promise<OperationRecord | null> {
    const rows = await this.db.operation.updateManyAndReturn({
      where: { id: operationId, status: { in: [...from] } },
      data: {
        status: to,
        ...(changes.result !== undefined ? { result: changes.result as Prisma.InputJsonValue } : {}),
        ...(changes.error !== undefined ? { error: changes.error } : {}),
        ...(changes.startedAt ? { startedAt: changes.startedAt } : {}),
        ...(changes.finishedAt ? { finishedAt: changes.finishedAt } : {}),
        ...(changes.incrementAttempts ? { attempts: { increment: 1 } } : {}),
      },
    });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listQueuedBefore(before: Date, limit: number): Promise<OperationRecord[]> {
    return (await this.db.operation.findMany({ where: { status: 'queued', createdAt: { lt: before } }, orderBy: { createdAt: 'asc' }, take: limit })).map(toRecord);
  }
}

export class PrismaOwnerRepository implements OwnerRepository {
  constructor(private readonly db: Db) {}

  async existingWorkspaceIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.workspace.findMany({ where: { id: { in: ids } }, select: { id: true } });
    return new Set(rows.map((r) => r.id));
  }
}
