import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDb, type Db } from '@slipway/db';
import { createTestDatabase, TEST_SERVICES, type TestDatabase } from '@slipway/testing';
import { testEnv, uniquePrefix } from '@slipway/testing/worker';

jest.setTimeout(60_000);

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../bin/slipway-admin');

// Issue 13: the operator sees backups that failed and completed backups whose restore check failed, never the good ones;
// issue 33: backups their destination refused, and nightly ones waiting for another try, with the reason.
describe('slipway-admin backups', () => {
  let database: TestDatabase;
  let db: Db;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    env = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix: uniquePrefix('cli-backups'), dataDir: '/tmp' });
  });

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const row = (o: { status: string; error?: string; verifyStatus?: string; verifyMessage?: string; name: string }) => ({
    id: randomUUID(),
    workspaceId: randomUUID(),
    databaseId: randomUUID(),
    sourceName: o.name,
    engine: 'postgres',
    version: '16',
    cpuMillis: 250,
    memoryMb: 256,
    diskMb: 1024,
    kind: 'scheduled',
    status: o.status,
    error: o.error ?? null,
    verifyStatus: o.verifyStatus ?? null,
    verifyMessage: o.verifyMessage ?? null,
    expiresAt: new Date(Date.now() + 86_400_000),
  });

  it('lists failed backups and failed checks, as a table and as JSON', async () => {
    const failed = row({ status: 'failed', error: "The server's disk is full: the dump stopped after 1.0 MB", name: 'orders' });
    const badCheck = row({ status: 'completed', verifyStatus: 'failed', verifyMessage: 'pg_restore --list failed (exit 1)', name: 'users' });
    const good = row({ status: 'completed', verifyStatus: 'passed', name: 'fine' });
    // Issue 33: a backup its destination refused, and a nightly one waiting for its next try within the window.
    const offsite = row({ status: 'failed', error: 'Uploading the backup failed. The storage refused the credentials (SignatureDoesNotMatch): check the access key id AKID and its secret key, and the region auto. (Nightly backup: it was tried 4 times.)', name: 'ledger' });
    const retrying = row({ status: 'pending', error: "Nightly backup try 1 of 4 failed: Uploading the backup failed. The bucket b does not exist at s3.example.com: create it, or correct the bucket's name. It is tried again at 01:35:00 UTC, within the night's window (until 05:00:00 UTC).", name: 'events' });
    const queued = row({ status: 'pending', name: 'queued' });
    for (const r of [failed, badCheck, good, offsite, retrying, queued]) await db.databaseBackup.create({ data: r });

    const { stdout } = await run(BIN, ['backups', '--json'], { env: { ...process.env, ...env } });
    const listed = JSON.parse(stdout) as { id: string; status: string; check: string | null; error: string | null }[];
    expect(listed.map((b) => b.id).sort()).toEqual([failed.id, badCheck.id, offsite.id, retrying.id].sort());
    expect(listed.find((b) => b.id === offsite.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^Uploading the backup failed\. The storage refused the credentials/) });
    expect(listed.find((b) => b.id === retrying.id)).toMatchObject({ status: 'pending', error: expect.stringMatching(/^Nightly backup try 1 of 4 failed/) });
    expect(listed.find((b) => b.id === failed.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/disk is full/) });
    expect(listed.find((b) => b.id === badCheck.id)).toMatchObject({ status: 'completed', check: 'failed' });

    const human = await run(BIN, ['backups'], { env: { ...process.env, ...env } });
    expect(human.stdout).toMatch(/^BACKUP\s+DATABASE\s+ENGINE\s+KIND\s+STATUS\s+CHECK\s+MADE\s+WHY/);
    expect(human.stdout).toMatch(/orders.*failed.*disk is full/);
    expect(human.stdout).toMatch(/users.*completed\s+failed.*pg_restore --list failed/);
    expect(human.stdout).toMatch(/ledger.*failed.*Uploading the backup failed\. The storage refused the credentials/);
    expect(human.stdout).toMatch(/events.*pending.*Nightly backup try 1 of 4 failed/);
    expect(human.stdout).not.toMatch(/fine/);
    expect(human.stdout).not.toMatch(/queued/);
  });
});
