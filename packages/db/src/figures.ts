import type { Db } from './client';

export interface DatabaseFigures {
  /** pg_database_size of the control plane's database. */
  sizeBytes: number;
  /** The largest tables with their indexes and TOAST, largest first; rows are the planner's estimate. */
  tables: { name: string; bytes: number; rows: number }[];
}

/** The database's size and its largest tables, for the operator CLI (deployment logs are the ones that grow). */
export async function databaseFigures(db: Db, top = 8): Promise<DatabaseFigures> {
  const [size] = await db.$queryRaw<{ bytes: bigint }[]>`SELECT pg_database_size(current_database())::bigint AS bytes`;
  const tables = await db.$queryRaw<{ name: string; bytes: bigint; rows: number }[]>`
    SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes, GREATEST(c.reltuples, 0)::float8 AS rows
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname = current_schema()
    ORDER BY pg_total_relation_size(c.oid) DESC LIMIT ${top}`;
  return { sizeBytes: Number(size?.bytes ?? 0), tables: tables.map((t) => ({ name: t.name, bytes: Number(t.bytes), rows: Math.round(t.rows) })) };
}
