import { migrate } from '@slipway/db';
import { Client } from 'pg';
import { databaseUrl, TEST_SERVICES } from './services';

/**
 * Once per integration run: rebuild a template database with every migration applied, so each
 * test file gets its own copy in milliseconds (CREATE DATABASE … TEMPLATE).
 */
export default async function globalSetup(): Promise<void> {
  const admin = new Client({ connectionString: TEST_SERVICES.postgresAdminUrl });
  await admin.connect().catch((e: Error) => {
    throw new Error(`PostgreSQL is not reachable at ${TEST_SERVICES.postgresAdminUrl} (run deploy/test.sh): ${e.message}`);
  });
  try {
    const template = TEST_SERVICES.templateDatabase;
    await admin.query(`UPDATE pg_database SET datistemplate = false WHERE datname = $1`, [template]);
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${template}`);
    await migrate(databaseUrl(template));
    await admin.query(`UPDATE pg_database SET datistemplate = true WHERE datname = $1`, [template]);
    // Leftovers of earlier runs that were killed before they could drop their databases.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'slipway_test_%' AND datname <> $1`,
      [template],
    );
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
