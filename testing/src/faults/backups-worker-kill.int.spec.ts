// The worker killed (SIGKILL) mid-backup and mid-restore (issue 27): the platform's own processes from the compiled
// bundles under their supervisor (as production runs them), a scratch database on this machine's PostgreSQL, its Redis
// under a prefix of its own, a private Caddy, and the machine's Docker engine (nothing of it is restarted). Each kill
// lands while the agent is doing the work (pg_dump or pg_restore seen running inside the engine); afterwards the rows
// end honestly — the backup completed, the database running with the backup's data — nothing stays running or
// restoring, and the next manual backup is accepted and completes.
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { ApiClient } from '../api-client';
import { createTestDatabase, type TestDatabase } from '../database';
import { run } from '../databases';
import { createWorkspace, signUp } from '../factories';
import { TEST_SERVICES } from '../services';
import { ensureBundles, FaultPlatform } from './platform';
import { PrivateCaddy, waitUntil } from './private-services';

jest.setTimeout(600_000);

/** The job lock of the killed worker's job: BullMQ finds it stalled within about 1.5 × this and runs it again. */
const LOCK_MS = 4_000;
/** Rows of the big table: enough that its dump and its load take seconds on a database's CPU share. */
const BIG_ROWS = 1_000_000;

interface BackupView {
  id: string;
  kind: string;
  status: string;
  error: string | null;
  sizeBytes: number | null;
}

describe('the worker killed mid-backup and mid-restore', () => {
  let caddy: PrivateCaddy;
  let database: TestDatabase;
  let platform: FaultPlatform;
  let sql: Client;
  let client: ApiClient;
  let dbPath: string;
  let databaseId: string;
  let firstBackup: BackupView;

  beforeAll(async () => {
    ensureBundles();
    [caddy, database] = await Promise.all([PrivateCaddy.start(), createTestDatabase()]);
    platform = await FaultPlatform.start({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, caddyAdminUrl: caddy.adminUrl }, { SLIPWAY_WORKER_LOCK_MS: String(LOCK_MS) });
    await platform.boot();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    client = new ApiClient(platform.base, { origin: `http://localhost:${platform.apiPort}` });
    await signUp(client);
    const ws = await createWorkspace(client);
    const created = await client.post(`/v1/workspaces/${ws.id}/databases`, { name: 'killed', engine: 'postgres', memoryMb: 256 });
    expect(created.status).toBe(201);
    databaseId = created.body.id as string;
    dbPath = `/v1/workspaces/${ws.id}/databases/${databaseId}`;
    await waitUntil('the database to run', async () => (await client.get(dbPath)).body.status === 'running', 180_000, 500);
    await psql(`CREATE TABLE held (id int); INSERT INTO held VALUES (1); CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, ${BIG_ROWS}) g; CREATE INDEX big_h ON big (h);`, 300_000);
  }, 900_000);

  afterAll(async () => {
    await sql?.end().catch(() => undefined);
    await platform?.stop(process.env.SLIPWAY_FAULTS_KEEP === '1');
    await Promise.allSettled([caddy?.remove(), database?.drop()]);
  }, 180_000);

  /** The database's container (found by its label). */
  async function container(): Promise<string> {
    const r = await run('docker', ['ps', '-q', '--filter', `label=slipway.database=${databaseId}`], {});
    if (!r.stdout) throw new Error(`no running container for database ${databaseId}`);
    return r.stdout.split('\n')[0]!;
  }

  /** One psql call inside the engine's container (its socket, the database's own user). */
  async function psql(statement: string, timeoutMs = 30_000): Promise<string> {
    const r = await run('docker', ['exec', await container(), 'psql', '-U', 'slipway', '-d', 'app', '-X', '-tA', '-v', 'ON_ERROR_STOP=1', '-c', statement], {}, timeoutMs);
    if (r.code !== 0) throw new Error(`psql failed (${r.code}): ${r.stderr}`);
    return r.stdout;
  }

  /** A program of the engine's clients running now (pg_dump, pg_restore: each names itself in pg_stat_activity). */
  async function running(application: string): Promise<boolean> {
    const n = await psql(`SELECT count(*) FROM pg_stat_activity WHERE application_name = '${application}'`).catch(() => '0');
    return Number(n) > 0;
  }

  const backup = async (id: string) => (await client.get(`${dbPath}/backups/${id}`)).body as BackupView;
  const settled = (status: string) => ['completed', 'failed'].includes(status);

  /** The backup is claimed and pg_dump runs in the engine. */
  async function dumping(backupId: string): Promise<boolean> {
    return (await backup(backupId)).status === 'running' && (await running('pg_dump'));
  }

  /** The restore loads: its pre-restore backup is made, the database is restoring and pg_restore runs in the engine. */
  async function loading(preRestoreId: string): Promise<boolean> {
    return (await backup(preRestoreId)).status === 'completed' && (await client.get(dbPath)).body.status === 'restoring' && (await running('pg_restore'));
  }

  /** SIGKILL the worker; resolves once its supervisor runs a new one. */
  async function killWorker(): Promise<void> {
    const killed = platform.kill('worker');
    await waitUntil('the worker to be started again', async () => {
      const pid = platform.pid('worker');
      return pid !== null && pid !== killed;
    }, 60_000, 100);
  }

  /** An hour passes for the one-manual-backup-an-hour rule (the rows' creation times moved back). */
  async function anHourPasses(): Promise<void> {
    await sql.query(`UPDATE database_backups SET created_at = created_at - interval '61 minutes' WHERE database_id = $1`, [databaseId]);
  }

  /** Backups of the database still pending or running (none once everything settled). */
  async function unsettled(): Promise<string[]> {
    const r = await sql.query<{ id: string; status: string }>(`SELECT id, status FROM database_backups WHERE database_id = $1 AND status IN ('pending', 'running')`, [databaseId]);
    return r.rows.map((x) => `${x.id} ${x.status}`);
  }

  /** The next manual backup: accepted, and completed. */
  async function nextBackupCompletes(): Promise<{ accepted: number; status: string; error: string | null }> {
    await anHourPasses();
    const next = await client.post(`${dbPath}/backups`);
    // Refused: the answer says why (a backup still active, the database busy), not a wait on a backup that is not there.
    expect({ status: next.status, body: next.status === 202 ? null : next.body }).toEqual({ status: 202, body: null });
    const id = next.body.id as string;
    const done = await waitUntil('the next backup to settle', async () => settled((await backup(id)).status), 180_000, 500)
      .catch(async (e: Error) => {
        const rows = await sql.query(`SELECT id, kind, status, error, created_at, started_at FROM database_backups WHERE database_id = $1 ORDER BY created_at`, [databaseId]);
        throw new Error(`${e.message}; the database's backups: ${JSON.stringify(rows.rows)}; the database: ${JSON.stringify((await client.get(dbPath)).body)}`);
      })
      .then(() => backup(id));
    return { accepted: next.status, status: done.status, error: done.error };
  }

  it('mid-backup (pg_dump running): the backup ends completed, the database running, and the next backup is accepted', async () => {
    // pg_dump waits for a lock another session holds, so the kill surely lands while the dump runs.
    const holder: ChildProcess = spawn('docker', ['exec', await container(), 'psql', '-U', 'slipway', '-d', 'app', '-X', '-c', 'BEGIN; LOCK TABLE held IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT;'], { stdio: 'ignore' });
    const holderGone = new Promise((r) => holder.once('exit', r));
    await waitUntil('the lock to be held', async () => (await psql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'held' AND l.mode = 'AccessExclusiveLock' AND l.granted")) === '1', 30_000, 200);

    const accepted = await client.post(`${dbPath}/backups`);
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    await waitUntil('the backup to run with pg_dump in the engine', () => dumping(id), 60_000, 200);

    await killWorker();
    // The lock goes; the agent's dump (its caller gone) finishes, and the job run again answers with that file.
    await psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'BEGIN; LOCK TABLE held%'");
    await holderGone;

    firstBackup = await waitUntil('the backup to settle', async () => settled((await backup(id)).status), 180_000, 500).then(() => backup(id));
    expect(firstBackup).toMatchObject({ status: 'completed', error: null, sizeBytes: expect.any(Number) });
    expect(firstBackup.sizeBytes).toBeGreaterThan(BIG_ROWS * 32);
    expect((await client.get(dbPath)).body).toMatchObject({ status: 'running' });
    expect(await unsettled()).toEqual([]);
    expect(await nextBackupCompletes()).toEqual({ accepted: 202, status: 'completed', error: null });
  });

  it('mid-restore (pg_restore running): the database ends running with the backup\'s data, and the next backup is accepted', async () => {
    // A row written after the backup: the restore takes it away.
    await psql('INSERT INTO held VALUES (2)');
    const restore = await client.post(`${dbPath}/backups/${firstBackup.id}/restore`, { target: 'same' });
    expect(restore.status).toBe(202);
    const preRestoreId = restore.body.preRestoreBackupId as string;
    await waitUntil('the load to run (pre-restore backup made, pg_restore in the engine)', () => loading(preRestoreId), 180_000, 100);

    await killWorker();

    const after = await waitUntil('the database to settle', async () => ['running', 'failed'].includes((await client.get(dbPath)).body.status as string), 240_000, 500).then(
      async () => (await client.get(dbPath)).body as { status: string; statusMessage: string | null },
    );
    expect(after).toMatchObject({ status: 'running' });
    expect({ held: await psql('SELECT string_agg(id::text, \',\' ORDER BY id) FROM held'), big: Number(await psql('SELECT count(*) FROM big')) }).toEqual({ held: '1', big: BIG_ROWS });
    expect(await backup(preRestoreId)).toMatchObject({ kind: 'pre_restore', status: 'completed', error: null });
    expect(await unsettled()).toEqual([]);
    expect(await nextBackupCompletes()).toEqual({ accepted: 202, status: 'completed', error: null });
  });
});
