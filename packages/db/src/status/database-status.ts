// The one writer of a database row's status (issue 27): `status`, `status_message` and `running_since` of the
// `databases` table are written here and nowhere else in packages/db (status-writers.spec.ts fails otherwise). Every
// write is the state table's conditional move (`UPDATE … WHERE status IN (sources)`), whoever asks for it: the
// request side (a new row, an intent, a restore begun) and the job side (a converge's settlement, a rotation, the
// backups' restore bookkeeping).
import { databaseMoveFrom, databaseSources, type DatabaseStatus, type NewDatabase } from '@slipway/core';
import type { Db } from '../client';
import type { Database as DatabaseRow, Prisma } from '../generated/client';

/** A client or the transaction a caller already runs. */
type Client = Db | Prisma.TransactionClient;

/** The columns that are the status's own: only this module writes them. */
type StatusColumns = 'status' | 'statusMessage' | 'runningSince';

export interface DatabaseStatusMove {
  to: DatabaseStatus;
  /** What the caller allows, narrowed to what the state table allows (default: every source the table lists). */
  from?: readonly DatabaseStatus[];
  /** The status message (undefined: kept). */
  message?: string | null;
  /** When it began running (undefined: kept). */
  runningSince?: Date | null;
  /** Other columns written in the same statement. */
  with?: Omit<Prisma.DatabaseUpdateManyMutationInput, StatusColumns>;
}

/**
 * Moves the rows matched by `where` to `move.to`, only from a status the state table (and the caller) allows; true
 * when a row moved. `where` never names the status: the sources do.
 */
export async function moveDatabaseStatus(db: Client, where: Omit<Prisma.DatabaseWhereInput, 'status'>, move: DatabaseStatusMove): Promise<boolean> {
  const sources = move.from ? databaseMoveFrom(move.from, move.to) : databaseSources(move.to);
  if (!sources.length) return false;
  const { count } = await db.database.updateMany({
    where: { ...where, status: { in: sources } },
    data: {
      ...move.with,
      status: move.to,
      ...(move.message !== undefined ? { statusMessage: move.message } : {}),
      ...(move.runningSince !== undefined ? { runningSince: move.runningSince } : {}),
    },
  });
  return count > 0;
}

/** A new database row: it starts `provisioning`, wanted running, at generation 1. */
export function insertDatabase(db: Client, input: NewDatabase): Promise<DatabaseRow> {
  return db.database.create({ data: { ...input, status: 'provisioning', desiredState: 'running', generation: 1 } });
}
