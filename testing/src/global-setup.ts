import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { migrate, MIGRATIONS_DIR } from '@slipway/db';
import { Client } from 'pg';
import { databaseUrl, TEST_SERVICES } from './services';

/**
 * Once per integration run: make sure a template database with every migration applied exists, so
 * each test file gets its own copy in milliseconds (CREATE DATABASE … TEMPLATE). The template's name
 * carries a hash of the migrations, so concurrent runs share it and a changed migration gets a new one.
 */
export default async function globalSetup(): Promise<void> {
  const template = `${TEST_SERVICES.templateDatabase}_${migrationsHash()}`;
  process.env.SLIPWAY_TEST_TEMPLATE = template;
  const admin = new Client({ connectionString: TEST_SERVICES.postgresAdminUrl });
  await admin.connect().catch((e: Error) => {
    throw new Error(`PostgreSQL is not reachable at ${TEST_SERVICES.postgresAdminUrl} (run deploy/test.sh): ${e.message}`);
  });
  try {
    await admin.query('SELECT pg_advisory_lock(4242)');
    const { rows } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate`, [template]);
    if (rows.length === 0) {
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${template}`);
      await migrate(databaseUrl(template));
      await admin.query(`UPDATE pg_database SET datistemplate = true WHERE datname = $1`, [template]);
    }
    // Copies left by runs killed more than two hours ago (names carry their creation time).
    const old = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^slipway_test_[0-9]+_'`);
    const cutoff = Math.floor(Date.now() / 1000) - 7200;
    for (const r of old.rows) {
      if (Number(r.datname.split('_')[2]) < cutoff) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    }
    await admin.query('SELECT pg_advisory_unlock(4242)');
  } finally {
    await admin.end();
  }
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort()) {
    if (name.endsWith('.toml')) continue;
    hash.update(name).update(readFileSync(path.join(MIGRATIONS_DIR, name, 'migration.sql')));
  }
  return hash.digest('hex').slice(0, 12);
}
