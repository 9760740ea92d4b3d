import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../prisma/migrations');

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export class MigrationError extends Error {
  constructor(message: string, readonly migration?: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

// Any 64-bit number, fixed: serialises concurrent runners (API and worker starting together).
const LOCK_KEY = 7_215_090_311;

/**
 * Applies the committed SQL migrations in name order, each in its own transaction, and records them
 * in Prisma's `_prisma_migrations` table so Prisma's tools agree on what is applied. A migration
 * already applied whose file changed since is refused: landed migrations are never edited.
 */
export async function migrate(url: string, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((r) => [r.migration_name, r]));
    const names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const applied: string[] = [];
    for (const name of names) {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(name);
      if (previous) {
        if (!previous.finished_at) throw new MigrationError(`Migration ${name} failed earlier and needs a manual fix`, name);
        if (previous.checksum !== checksum) throw new MigrationError(`Migration ${name} was edited after it was applied`, name);
        continue;
      }
      try {
        await client.query('BEGIN');
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES (gen_random_uuid()::text, $1, now(), $2, 1)`,
          [checksum, name],
        );
        await client.query('COMMIT');
        applied.push(name);
      } catch (e) {
        await client.query('ROLLBACK');
        throw new MigrationError(`Migration ${name} failed: ${(e as Error).message}`, name);
      }
    }
    return { applied, alreadyApplied: names.length - applied.length };
  } finally {
    await client.end();
  }
}
