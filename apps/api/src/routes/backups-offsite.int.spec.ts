import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { localDate, newBackup, REDACT_PATHS, type BackupSettings, type DatabaseEngine } from '@slipway/core';
import { createJobStores } from '@slipway/db';
import { ApiClient, createWorkspace, signUp, type ApiResponse } from '@slipway/testing';
import { queryInContainer, until, type TestEngine } from '@slipway/testing/databases';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { S3RVER_ACCESS_KEY_ID, startStoppingS3, startTestS3, type StoppingS3, type TestS3 } from '@slipway/testing/s3';
import pino from 'pino';

jest.setTimeout(420_000);

// Issue 33 items 2-4, end to end through HTTP with the real agent, Docker and engines (postgres, MariaDB, Redis) and an
// S3-protocol server (s3rver): with a destination in effect every backup is streamed there encrypted (the object's
// bytes hold no known row; its size and SHA-256 are what the API records; no file is left on the server, the local
// cache keeping none), checked restorable from the destination, restored into a new and into the same database from
// the object alone; a missing bucket and a storage server that stops in the middle of the upload end the backup
// `failed` with a sentence (no completed row, listed for slipway-admin backups); retention removes the objects; the
// secret key never appears in a response or a log line.

/** Every response's text, kept: the secret key must be in none. */
class RecordingClient extends ApiClient {
  readonly texts: string[] = [];
  override async request<T = unknown>(method: string, url: string, options?: Parameters<ApiClient['request']>[2]): Promise<ApiResponse<T>> {
    const r = await super.request<T>(method, url, options);
    this.texts.push(r.text);
    return r;
  }
}

type BackupBody = {
  id: string;
  status: string;
  kind: string;
  error: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  localCopy: boolean;
  offsite: { destinationId: string | null; key: string; sizeBytes: number; sha256: string } | null;
  verification: { status: string; message: string | null };
};

describe('backups at a destination (s3rver), end to end', () => {
  let p: TestPlatform;
  let s3: TestS3;
  let stopping: StoppingS3;
  let client: RecordingClient;
  let now = new Date();
  const logs: string[] = [];
  const SECRET = `offsite-secret-${randomUUID()}`;
  const BUCKET = 'backups';
  // A window of the whole day (0–0) so that a nightly backup made now has its window open; its retries 3 s, then 6 s apart.
  const settings: BackupSettings = {
    window: { startHour: 0, endHour: 0 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 }, localCopies: 0, nightlyRetry: { tries: 3, firstDelayMs: 3000 },
  };

  beforeAll(async () => {
    // The front checks SigV4 signatures: only SECRET signs right for the key id.
    s3 = await startTestS3({ buckets: [BUCKET], credentials: { [S3RVER_ACCESS_KEY_ID]: SECRET } });
    // The product's logger (same redaction), at debug, into memory.
    const logger = pino({ level: 'debug', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, { write: (line: string) => void logs.push(line) });
    p = await startTestPlatform({ name: 'offsite', logger, backups: { clock: () => now, settings } });
    client = new RecordingClient(p.base, { origin: p.publicOrigin });
    await signUp(client);
  });

  afterAll(async () => {
    await stopping?.close();
    await p?.close();
    await s3?.close();
  });

  const dbPath = (ws: string, id = '') => `/v1/workspaces/${ws}/databases${id ? `/${id}` : ''}`;
  const backupsPath = (ws: string, id: string, backupId = '') => `${dbPath(ws, id)}/backups${backupId ? `/${backupId}` : ''}`;

  async function destination(ws: string, over: Record<string, unknown> = {}): Promise<string> {
    const created = await client.post(`/v1/workspaces/${ws}/backup-destinations`, {
      name: `dest-${randomUUID().slice(0, 8)}`, endpoint: s3.endpoint, region: 'us-east-1', bucket: BUCKET, prefix: 'slipway/', pathStyle: true,
      accessKeyId: S3RVER_ACCESS_KEY_ID, secretKey: SECRET, ...over,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  /** The database's status and message once it settled (running, stopped or failed). */
  const settledDatabase = (ws: string, id: string) =>
    until(async () => (await client.get(dbPath(ws, id))).body as { status: string; statusMessage: string | null }, (d) => ['running', 'stopped', 'failed'].includes(d.status), 180_000, 300).then(
      (d) => ({ status: d.status, statusMessage: d.statusMessage }),
    );
  const RUNNING = { status: 'running', statusMessage: null };

  const settled = (ws: string, id: string, backupId: string) =>
    until(async () => (await client.get(backupsPath(ws, id, backupId))).body as BackupBody, (b) => b.status === 'completed' || b.status === 'failed', 240_000, 300);

  const verified = (ws: string, id: string, backupId: string) =>
    until(async () => (await client.get(backupsPath(ws, id, backupId))).body as BackupBody, (b) => b.verification.status !== 'pending', 120_000, 300);

  /** A statement through the engine's own client inside its container; the output's lines, sorted, joined by commas. */
  async function query(engine: TestEngine, ws: string, id: string, statement: string): Promise<string> {
    const c = (await client.get(`${dbPath(ws, id)}/connection`)).body as { username: string; password: string; databaseName: string };
    return queryInContainer(p.docker, id, engine, c, statement);
  }

  /** The backup files on the agent's server for a database. */
  const localFiles = (id: string) => readdir(path.join(p.agent.dataDir, 'backups', id)).catch(() => [] as string[]);

  // A value that would be in a plain dump: it must not be in the stored object.
  const MARK = `known-row-${randomUUID().slice(0, 8)}`;
  const WRITE: Record<TestEngine, string[]> = {
    postgres: ['CREATE TABLE t (v text)', `INSERT INTO t VALUES ('a'), ('${MARK}')`],
    mysql: ['CREATE TABLE t (v varchar(64))', `INSERT INTO t VALUES ('a'), ('${MARK}')`],
    redis: [`RPUSH t a ${MARK}`],
  };
  const CHANGE: Record<TestEngine, string> = { postgres: "INSERT INTO t VALUES ('c')", mysql: "INSERT INTO t VALUES ('c')", redis: 'RPUSH t c' };
  const READ: Record<TestEngine, string> = { postgres: 'SELECT v FROM t', mysql: 'SELECT v FROM t', redis: 'LRANGE t 0 -1' };
  const MEMORY: Record<TestEngine, number> = { postgres: 256, mysql: 512, redis: 64 };
  const before = ['a', MARK].sort().join(',');
  const after = ['a', 'c', MARK].sort().join(',');
  const made: { ws: string; id: string; key: string }[] = [];

  test.concurrent.each(['postgres', 'mysql', 'redis'] as const)('%s: backed up encrypted to the destination, checked there, restored from it into new and same', async (engine) => {
    const ws = (await createWorkspace(client)).id;
    await destination(ws, { isDefault: true });
    const created = await client.post(dbPath(ws), { name: `Off ${engine}`, engine, memoryMb: MEMORY[engine] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await settledDatabase(ws, id)).toEqual(RUNNING);
    for (const s of WRITE[engine]) await query(engine, ws, id, s);
    expect(await query(engine, ws, id, READ[engine])).toBe(before);

    const posted = await client.post(backupsPath(ws, id));
    expect(posted.status).toBe(202);
    const backup = await settled(ws, id, posted.body.id);
    expect(backup).toMatchObject({ status: 'completed', error: null, localCopy: false, offsite: { key: expect.stringMatching(new RegExp(`^slipway/${ws}/${id}/${backup.id}\\.`)) } });
    made.push({ ws, id, key: backup.offsite!.key });

    // The object: what the API recorded, sealed (no known row in it), with its manifest; nothing left on the server.
    const objects = await s3.objects(BUCKET);
    const object = objects.get(backup.offsite!.key)!;
    expect({ size: object.length, sha256: createHash('sha256').update(object).digest('hex') }).toEqual({ size: backup.offsite!.sizeBytes, sha256: backup.offsite!.sha256 });
    expect(object.subarray(0, 4).toString('latin1')).toBe('SWBK');
    expect(object.includes(Buffer.from(MARK))).toBe(false);
    expect(JSON.parse(objects.get(`${backup.offsite!.key}.json`)!.toString('utf8'))).toMatchObject({ format: 'slipway-sealed-v1', engine, sha256: backup.offsite!.sha256, plainSha256: backup.sha256 });
    expect(await localFiles(id)).toEqual([]);
    // Checked restorable from the destination (downloaded and opened; postgres also read whole by pg_restore).
    expect((await verified(ws, id, backup.id)).verification).toMatchObject({ status: 'passed', message: expect.stringMatching(/^offsite/) });
    // No file on the server to download: said in words.
    const download = await client.get(`${backupsPath(ws, id, backup.id)}/download`);
    expect(download.status).toBe(409);
    expect(download.body.error.message).toMatch(/kept only at its backup destination/);

    await query(engine, ws, id, CHANGE[engine]);
    expect(await query(engine, ws, id, READ[engine])).toBe(after);

    // Into a new database: its server has no file of the backup, so the agent downloads and opens the object.
    const intoNew = await client.post(`${backupsPath(ws, id, backup.id)}/restore`, { target: 'new' });
    expect(intoNew.status).toBe(202);
    const fresh = intoNew.body.databaseId as string;
    await until(async () => query(engine, ws, fresh, READ[engine]).catch(() => ''), (v) => v === before, 240_000, 500);
    expect(await settledDatabase(ws, fresh)).toEqual(RUNNING);
    expect(await query(engine, ws, id, READ[engine])).toBe(after);
    expect(await localFiles(id)).toEqual([]);
    expect((await client.delete(dbPath(ws, fresh))).status).toBe(200);

    // Into the same database: the pre-restore backup goes to the destination too, then the old rows are back.
    const same = await client.post(`${backupsPath(ws, id, backup.id)}/restore`, { target: 'same' });
    expect(same.status).toBe(202);
    expect(await settledDatabase(ws, id)).toEqual(RUNNING);
    expect(await query(engine, ws, id, READ[engine])).toBe(before);
    const pre = await settled(ws, id, same.body.preRestoreBackupId);
    expect(pre).toMatchObject({ kind: 'pre_restore', status: 'completed', localCopy: false, offsite: { key: expect.any(String) } });
    made.push({ ws, id, key: pre.offsite!.key });
    expect(await localFiles(id)).toEqual([]);
  });

  it('a missing bucket and a storage server stopped mid-upload end the backup failed with a sentence, no completed row', async () => {
    const ws = (await createWorkspace(client)).id;
    const created = await client.post(dbPath(ws), { name: 'Big', engine: 'postgres', memoryMb: 256 });
    const id = created.body.id as string;
    expect(await settledDatabase(ws, id)).toEqual(RUNNING);
    // About 30 MB of rows that do not compress: the upload is in its parts when the server stops.
    await query('postgres', ws, id, 'CREATE TABLE big AS SELECT g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) AS v FROM generate_series(1, 300000) g');

    const missing = await destination(ws, { bucket: 'no-such-bucket' });
    expect((await client.put(`${dbPath(ws, id)}/backup-destination`, { destinationId: missing })).status).toBe(200);
    const first = await client.post(backupsPath(ws, id));
    expect(first.status).toBe(202);
    expect(await settled(ws, id, first.body.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/bucket no-such-bucket (does not exist|was not found)/), sizeBytes: null, offsite: null });

    stopping = await startStoppingS3(s3.endpoint, 12 * 1024 * 1024);
    const cut = await destination(ws, { endpoint: stopping.endpoint });
    expect((await client.put(`${dbPath(ws, id)}/backup-destination`, { destinationId: cut })).status).toBe(200);
    const second = await client.post(backupsPath(ws, id));
    expect(second.status).toBe(202);
    const failed = await settled(ws, id, second.body.id);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/^Uploading the backup failed\. The endpoint 127\.0\.0\.1:[0-9]+ could not be reached/), sizeBytes: null, offsite: null });
    await stopping.stopped;
    expect(stopping.passed()).toBeGreaterThanOrEqual(12 * 1024 * 1024);
    expect([...(await s3.objects(BUCKET)).keys()].filter((k) => k.includes(second.body.id))).toEqual([]);
    expect(await localFiles(id)).toEqual([]);

    // Neither counts as a backup; both are what `slipway-admin backups` lists.
    const list = (await client.get(backupsPath(ws, id))).body.data as BackupBody[];
    expect(list.map((b) => b.status)).toEqual(['failed', 'failed']);
    const failures = (await createJobStores(p.db).backups.failures(100)).map((b) => b.id);
    expect(failures).toEqual(expect.arrayContaining([first.body.id, second.body.id]));
    // The database is untouched and still answers.
    expect((await client.get(dbPath(ws, id))).body.status).toBe('running');
  });

  it('wrong credentials (the server checks SigV4 signatures) fail the backup with a sentence; a nightly one is tried again within its window and completes once the secret is right', async () => {
    const ws = (await createWorkspace(client)).id;
    const created = await client.post(dbPath(ws), { name: 'Creds', engine: 'postgres', memoryMb: 256 });
    const id = created.body.id as string;
    expect(await settledDatabase(ws, id)).toEqual(RUNNING);
    await query('postgres', ws, id, 'CREATE TABLE t AS SELECT g FROM generate_series(1, 1000) g');
    const wrong = await destination(ws, { secretKey: `wrong-${randomUUID()}` });
    expect((await client.put(`${dbPath(ws, id)}/backup-destination`, { destinationId: wrong })).status).toBe(200);
    const refusedBefore = s3.refusals('SignatureDoesNotMatch');
    // The test call runs on the workspace's server (its agent): it says the credentials are refused, and where it ran.
    const server = (await p.db.node.findUniqueOrThrow({ where: { id: (await p.db.workspace.findUniqueOrThrow({ where: { id: ws } })).nodeId! } })).name;
    const tested = await client.post(`/v1/workspaces/${ws}/backup-destinations/${wrong}/test`);
    expect(tested.body).toMatchObject({ ok: false, stage: 'write', reason: 'credentials', server, message: expect.stringMatching(/The storage refused the credentials \(SignatureDoesNotMatch\)/) });

    // A manual backup: failed at once, with the storage's refusal in words; no completed row, no object.
    const manual = await client.post(backupsPath(ws, id));
    expect(manual.status).toBe(202);
    expect(await settled(ws, id, manual.body.id)).toMatchObject({
      status: 'failed', error: expect.stringMatching(/^Uploading the backup failed\. The storage refused the credentials \(SignatureDoesNotMatch\): check the access key id S3RVER and its secret key/), sizeBytes: null, offsite: null,
    });
    expect(s3.refusals('SignatureDoesNotMatch')).toBeGreaterThan(refusedBefore);
    expect([...(await s3.objects(BUCKET)).keys()].filter((k) => k.includes(id))).toEqual([]);

    // Tonight's backup (the row the scheduler makes), run as its job runs: its try fails, it is tried again later.
    const row = await p.db.database.findUniqueOrThrow({ where: { id } });
    const stores = createJobStores(p.db);
    const nightly = await stores.backups.create({ ...newBackup(randomUUID(), { ...row, engine: row.engine as DatabaseEngine }, 'scheduled', now, settings), night: localDate(now, 'UTC') });
    expect(nightly).not.toBe('exists');
    const nightlyId = (nightly as { id: string }).id;
    expect(await p.worker.services.backups.run(nightlyId, { number: 1, final: false })).toMatchObject({ retrying: expect.any(String) });
    const firstTry = (await client.get(backupsPath(ws, id, nightlyId))).body as BackupBody;
    expect(firstTry).toMatchObject({ status: 'pending', error: expect.stringMatching(/^Nightly backup try 1 of 3 failed: Uploading the backup failed\. The storage refused the credentials \(SignatureDoesNotMatch\)/) });
    // Waiting for its next try is not being at work: a manual backup is accepted meanwhile (the database's lock keeps
    // the two dumps apart); it fails the same way, at once.
    const meanwhile = await client.post(backupsPath(ws, id));
    expect(meanwhile.status).toBe(202);
    expect(await settled(ws, id, meanwhile.body.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^Uploading the backup failed\. The storage refused the credentials/) });
    // The worker runs the second try about 3 s later (the queue's delayed job): it fails the same way, and says both.
    const secondTry = await until(async () => (await client.get(backupsPath(ws, id, nightlyId))).body as BackupBody, (b) => /try 2 of 3 failed/.test(String(b.error)), 60_000, 200);
    expect(secondTry.error).toMatch(/Earlier tries: #1 at \d\d:\d\d:\d\d UTC: Uploading the backup failed\. The storage refused the credentials/);
    // The owner corrects the secret before the third try: it completes, once.
    expect((await client.patch(`/v1/workspaces/${ws}/backup-destinations/${wrong}`, { secretKey: SECRET })).status).toBe(200);
    expect((await client.post(`/v1/workspaces/${ws}/backup-destinations/${wrong}/test`)).body).toMatchObject({ ok: true, server });
    const done = await settled(ws, id, nightlyId);
    expect(done).toMatchObject({ status: 'completed', kind: 'scheduled', error: null, offsite: { key: expect.stringContaining(nightlyId) } });
    const rows = await p.db.databaseBackup.findMany({ where: { databaseId: id, kind: 'scheduled' } });
    expect(rows.map((r) => r.status)).toEqual(['completed']);
    expect((await s3.objects(BUCKET)).has(done.offsite!.key)).toBe(true);
    made.push({ ws, id, key: done.offsite!.key });
    // The failed manual backup is what `slipway-admin backups` lists (the same store); the nightly one is not.
    const failures = (await stores.backups.failures(100)).map((b) => b.id);
    expect(failures).toEqual(expect.arrayContaining([manual.body.id, meanwhile.body.id]));
    expect(failures).not.toContain(nightlyId);
  });

  it('retention removes the objects at the destination; the secret key is in no response and no log line', async () => {
    expect(made.length).toBe(7);
    const keys = () => s3.objects(BUCKET).then((o) => [...o.keys()]);
    for (const m of made) expect(await keys()).toEqual(expect.arrayContaining([m.key, `${m.key}.json`]));
    now = new Date(Date.now() + 90 * 86_400_000);
    const pruned = await p.worker.services.backups.prune();
    expect(pruned.waiting).toBe(0);
    const left = await keys();
    expect(made.flatMap((m) => [m.key, `${m.key}.json`]).filter((k) => left.includes(k))).toEqual([]);
    for (const m of made) expect((await client.get(backupsPath(m.ws, m.id))).body.data).toEqual([]);

    expect(logs.length).toBeGreaterThan(10);
    expect(logs.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(client.texts.filter((t) => t.includes(SECRET))).toEqual([]);
  });
});
