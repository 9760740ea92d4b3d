import { canMoveDatabase, type DatabaseIntent, type DatabaseRecord, type DatabaseRepository, type DatabaseScope, type DatabaseStatus, type NewDatabase } from '@slipway/core';
import type { Db } from '../client';
import { Prisma } from '../generated/client';
import { insertDatabase, moveDatabaseStatus } from '../status/database-status';
import { toDatabaseRecord } from './database-rows';
import { isUniqueViolation } from './errors';

const PUBLIC_PORTS = { first: 20000, last: 20999 } as const;
/** A port another request took between the read and the write: tried again this many times. */
const PORT_TRIES = 5;

/**
 * Databases, request side: every method is scoped by the workspace. A deleted database keeps its row (status
 * `deleting`) until its teardown job erased its container and data.
 */
export class PrismaDatabaseRepository implements DatabaseRepository {
  constructor(private readonly db: Db) {}

  async list(scope: { workspaceId: string }): Promise<DatabaseRecord[]> {
    return (await this.db.database.findMany({ where: { workspaceId: scope.workspaceId, deletedAt: null }, orderBy: { id: 'asc' } })).map(toDatabaseRecord);
  }

  async find(scope: DatabaseScope): Promise<DatabaseRecord | null> {
    const d = await this.db.database.findFirst({ where: { id: scope.databaseId, workspaceId: scope.workspaceId, deletedAt: null } });
    return d ? toDatabaseRecord(d) : null;
  }

  async create(input: NewDatabase, operation: DatabaseIntent['operation']): Promise<{ db: DatabaseRecord; operationId: string } | 'name_taken'> {
    try {
      return await this.db.$transaction(async (tx) => {
        const row = await insertDatabase(tx, input);
        const op = await tx.operation.create({
          data: { kind: operation.kind, nodeId: operation.nodeId, workspaceId: input.workspaceId, payload: { ...operation.payload, generation: 1 } as Prisma.InputJsonValue },
          select: { id: true },
        });
        return { db: toDatabaseRecord(row), operationId: op.id };
      });
    } catch (e) {
      if (isUniqueViolation(e)) return 'name_taken';
      throw e;
    }
  }

  async nameTaken(scope: { workspaceId: string }, name: string, exceptId: string | null): Promise<boolean> {
    // lower() = lower(), not Prisma's insensitive mode (ILIKE: `%`, `_` and `\` in a name would be a pattern).
    const rows = await this.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM databases
      WHERE workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL AND lower(name) = lower(${name})
        AND (${exceptId}::uuid IS NULL OR id <> ${exceptId}::uuid)`;
    return (rows[0]?.n ?? 0) > 0;
  }

  async rename(scope: DatabaseScope, name: string): Promise<DatabaseRecord | null> {
    const { count } = await this.db.database.updateMany({ where: { id: scope.databaseId, workspaceId: scope.workspaceId, deletedAt: null }, data: { name } });
    return count ? this.find(scope) : null;
  }

  async recordIntent(
    scope: DatabaseScope,
    intent: DatabaseIntent,
  ): Promise<{ db: DatabaseRecord; operationId: string; moved: true } | { db: DatabaseRecord; moved: false } | 'no_port' | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.recordOnce(scope, intent);
      } catch (e) {
        // Two requests took the same free port: the unique index refused one; it picks again.
        if (isUniqueViolation(e) && intent.publicPort === 'allocate' && attempt < PORT_TRIES) continue;
        throw e;
      }
    }
  }

  private recordOnce(scope: DatabaseScope, intent: DatabaseIntent) {
    return this.db.$transaction(async (tx): Promise<{ db: DatabaseRecord; operationId: string; moved: true } | { db: DatabaseRecord; moved: false } | 'no_port' | null> => {
      // The row lock first: the status check, the port choice and the write see one state.
      const [locked] = await tx.$queryRaw<{ status: string; node_id: string | null; public_port: number | null }[]>`
        SELECT status, node_id, public_port FROM databases
        WHERE id = ${scope.databaseId}::uuid AND workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL FOR UPDATE`;
      if (!locked) return null;
      // The intent's own sources, and for a status it writes, the state table's.
      const status = locked.status as DatabaseStatus;
      if (!intent.from.includes(status) || (intent.changes.status !== undefined && !canMoveDatabase(status, intent.changes.status))) {
        return { db: toDatabaseRecord(await tx.database.findUniqueOrThrow({ where: { id: scope.databaseId } })), moved: false };
      }
      let publicPort: number | null | undefined;
      if (intent.publicPort === null) publicPort = null;
      if (intent.publicPort === 'allocate') {
        if (locked.public_port !== null) publicPort = locked.public_port;
        else {
          const used = new Set(
            (await tx.database.findMany({ where: { nodeId: locked.node_id, publicPort: { not: null } }, select: { publicPort: true } })).map((r) => r.publicPort),
          );
          let free: number | null = null;
          for (let p = PUBLIC_PORTS.first; p <= PUBLIC_PORTS.last && free === null; p++) if (!used.has(p)) free = p;
          if (free === null) return 'no_port';
          publicPort = free;
        }
      }
      // The status (and its message) through its one writer, on the row this transaction holds; the rest here.
      const { allowedCidrs, status: to, statusMessage, ...changes } = intent.changes;
      if (to !== undefined || statusMessage !== undefined) {
        await moveDatabaseStatus(tx, { id: scope.databaseId }, { from: [status], to: to ?? status, ...(statusMessage !== undefined ? { message: statusMessage } : {}) });
      }
      const row = await tx.database.update({
        where: { id: scope.databaseId },
        data: {
          ...changes,
          ...(allowedCidrs ? { allowedCidrs: { set: allowedCidrs } } : {}),
          ...(publicPort !== undefined ? { publicPort } : {}),
          generation: { increment: 1 },
        },
      });
      const op = await tx.operation.create({
        data: {
          kind: intent.operation.kind,
          nodeId: intent.operation.nodeId,
          workspaceId: scope.workspaceId,
          payload: { ...intent.operation.payload, generation: row.generation } as Prisma.InputJsonValue,
        },
        select: { id: true },
      });
      return { db: toDatabaseRecord(row), operationId: op.id, moved: true };
    });
  }

  async setAppSecret(scope: { workspaceId: string; appId: string }, key: string, sealedValue: string, now: Date): Promise<boolean> {
    return this.db.$transaction(async (tx) => {
      // The app must be a live app of the workspace: its row is locked for the write, or nothing is written.
      const [owned] = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM apps WHERE id = ${scope.appId}::uuid AND workspace_id = ${scope.workspaceId}::uuid AND deleted_at IS NULL FOR UPDATE`;
      if (!owned) return false;
      await tx.envVar.upsert({
        where: { appId_key: { appId: scope.appId, key } },
        create: { appId: scope.appId, key, value: sealedValue, secret: true, updatedAt: now },
        update: { value: sealedValue, secret: true, updatedAt: now },
      });
      return true;
    });
  }
}
