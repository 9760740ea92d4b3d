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
  const name = `slipway_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${TEST_SERVICES.templateDatabase}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(sql: string): Promise<void> {
  const admin = new Client({ connectionString: TEST_SERVICES.postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
