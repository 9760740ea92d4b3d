import type { BackupSettings } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { inNetwork, TEST_DATABASE_IMAGES, until } from '@slipway/testing/databases';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

// Issue 27: a backup whose dump stalls (its agent call never answers) ends `failed` with a reason once its limit
// passed, and the database is free again: the next manual backup is accepted and completes. The stall is real:
// another session holds an ACCESS EXCLUSIVE lock on a table, so pg_dump (no lock timeout) waits for it forever.
const RUN_LIMIT_MS = 6_000;
/** A status that will not change by itself any more. */
const settledStatus = (s: string) => ['running', 'failed', 'completed'].includes(s);
const settledBackup = (b: { status: string }) => ['completed', 'failed'].includes(b.status);

describe('a stalled backup', () => {
  let p: TestPlatform;
  let client: ApiClient;
  const settings: BackupSettings = { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 }, runLimitMs: RUN_LIMIT_MS };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'backups-stall', backups: { settings } });
    client = p.client();
    await signUp(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  it('ends failed with a reason past its limit, and the next manual backup is accepted and completes', async () => {
    const ws = await createWorkspace(client);
    const dbPath = (id: string) => `/v1/workspaces/${ws.id}/databases/${id}`;
    const created = await client.post(`/v1/workspaces/${ws.id}/databases`, { name: 'stalls', engine: 'postgres', memoryMb: 256 });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await until(async () => (await client.get(dbPath(id))).body.status as string, settledStatus, 120_000, 300).then((s) => expect(s).toBe('running'));
    const url = (await client.get(`${dbPath(id)}/connection`)).body.url as string;
    const psql = (sql: string, timeoutMs?: number) =>
      inNetwork(p.docker, { image: TEST_DATABASE_IMAGES.postgres, workspaceId: ws.id, platformId: p.agent.agent.platformId, script: 'psql "$URL" -v ON_ERROR_STOP=1 -tA -c "$SQL"', env: { URL: url, SQL: sql }, timeoutMs });
    expect((await psql('CREATE TABLE held (id int); INSERT INTO held VALUES (1)')).code).toBe(0);

    // A session that holds the table for 60 s; the test waits until PostgreSQL shows the lock granted.
    const holder = psql('BEGIN; LOCK TABLE held IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;', 90_000);
    await until(
      async () => (await psql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'held' AND l.mode = 'AccessExclusiveLock' AND l.granted")).output,
      (n) => n === '1',
      30_000,
      300,
    );

    const stalled = await client.post(`${dbPath(id)}/backups`);
    expect(stalled.status).toBe(202);
    const failed = await until(
      async () => (await client.get(`${dbPath(id)}/backups/${stalled.body.id as string}`)).body as { status: string; error: string | null },
      settledBackup,
      60_000,
      300,
    );
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('did not finish within 6 s') });
    // The database itself is untouched by the abandoned backup.
    expect((await client.get(dbPath(id))).body).toMatchObject({ status: 'running' });

    // The lock goes (its session ends); the next manual backup is accepted (not 409 busy, not 429: a failed one does
    // not count against the hour) and completes.
    expect((await psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'BEGIN; LOCK TABLE held%'")).code).toBe(0);
    await holder;
    const next = await client.post(`${dbPath(id)}/backups`);
    expect(next.status).toBe(202);
    const done = await until(
      async () => (await client.get(`${dbPath(id)}/backups/${next.body.id as string}`)).body as { status: string; error: string | null },
      settledBackup,
      120_000,
      300,
    );
    expect(done).toMatchObject({ status: 'completed', error: null });
  });
});
