import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { databaseUrl, TEST_SERVICES } from './services';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of this test file's own, copied from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env.SLIPWAY_TEST_TEMPLATE;
  if (!template) throw new Error('The integration global setup did not run');
  const name = `slipway_test_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** One statement on the maintenance database as the admin role (CREATE/DROP DATABASE for tests and benchmarks). */
export async function adminQuery(sql: string): Promise<void> {
  const admin = new Client({ connectionString: TEST_SERVICES.postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
