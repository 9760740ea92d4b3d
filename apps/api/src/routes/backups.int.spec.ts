import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { BackupSettings } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { databaseContainer, queryInContainer, until, type TestEngine } from '@slipway/testing/databases';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

// Issue 13, end to end through HTTP with the real agent, Docker and engines (postgres, MariaDB, Redis): rows written,
// a manual backup completed with size and checksum and verified, a second one within the hour refused (429 with
// Retry-After), the download's bytes hash to the checksum, rows changed, a restore into a new database brings the old
// rows there while the original keeps the changed ones, a restore into the same database brings them back and its
// pre_restore backup (restored into a new database) holds the changed ones. A backup of an engine that is frozen ends
// failed with the reason and no file. Then, with the clock driven: one scheduled backup per database for a night,
// missed nights caught up once, a stopped database skipped with a reason, expired backups pruned (rows and files).
describe('database backups, end to end', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let now = new Date();
  const settings: BackupSettings = { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 } };
  const all: { ws: string; id: string; engine: TestEngine }[] = [];

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'backups', backups: { clock: () => now, settings } });
    client = p.client();
    await signUp(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const dbPath = (ws: string, id = '') => `/v1/workspaces/${ws}/databases${id ? `/${id}` : ''}`;
  const backupsPath = (ws: string, id: string, backupId = '') => `${dbPath(ws, id)}/backups${backupId ? `/${backupId}` : ''}`;

  const status = (ws: string, id: string, want: string, timeoutMs = 120_000) =>
    until(
      async () => (await client.get(dbPath(ws, id))).body as { status: string; statusMessage: string | null },
      (d) => d.status === want || d.status === 'failed',
      timeoutMs,
      300,
    ).then((d) => {
      expect({ status: d.status, statusMessage: d.statusMessage }).toEqual({ status: want, statusMessage: null });
      return d;
    });

  const settled = (ws: string, id: string, backupId: string) =>
    until(
      async () => (await client.get(backupsPath(ws, id, backupId))).body as { status: string; error: string | null; sizeBytes: number | null; sha256: string | null; kind: string; verification: { status: string } },
      (b) => b.status === 'completed' || b.status === 'failed',
      120_000,
      300,
    );

  const containerOf = (id: string) => databaseContainer(p.docker, id);

  /** A statement through the engine's own client inside its container; the output's lines, sorted, joined by commas. */
  async function query(engine: TestEngine, ws: string, id: string, statement: string): Promise<string> {
    const c = (await client.get(`${dbPath(ws, id)}/connection`)).body as { username: string; password: string; databaseName: string };
    return queryInContainer(p.docker, id, engine, c, statement);
  }

  async function download(url: string): Promise<{ status: number; sha256Header: string | null; bytes: Buffer }> {
    const res = await fetch(new URL(url, p.base), { headers: { cookie: `svc_session=${client.cookie('svc_session')}` } });
    return { status: res.status, sha256Header: res.headers.get('x-checksum-sha256'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  const WRITE: Record<TestEngine, string[]> = {
    postgres: ['CREATE TABLE t (v text)', "INSERT INTO t VALUES ('a'), ('b')"],
    mysql: ['CREATE TABLE t (v varchar(10))', "INSERT INTO t VALUES ('a'), ('b')"],
    redis: ['RPUSH t a b'],
  };
  const CHANGE: Record<TestEngine, string> = { postgres: "INSERT INTO t VALUES ('c')", mysql: "INSERT INTO t VALUES ('c')", redis: 'RPUSH t c' };
  const READ: Record<TestEngine, string> = { postgres: 'SELECT v FROM t', mysql: 'SELECT v FROM t', redis: 'LRANGE t 0 -1' };
  const MEMORY: Record<TestEngine, number> = { postgres: 256, mysql: 512, redis: 64 };
  /** A third database of the engine exceeds the trial plan (1024 MB memory, 2048 MB disk; minimums of catalog.v2). */
  const THIRD_DATABASE_402: Record<TestEngine, boolean> = { postgres: true, mysql: true, redis: false };

  /**
   * Restores `restorePath` into a new database. When the plan has no room (402 quota_exceeded), deletes `room` and
   * restores again; else `room` stays and is tracked for the later cases. Says whether room had to be made.
   */
  async function restoreIntoNew(engine: TestEngine, ws: string, restorePath: string, room: string) {
    const first = await client.post(restorePath, { target: 'new' });
    if (first.status !== 402) {
      all.push({ ws, id: room, engine });
      return { undo: first, madeRoom: false };
    }
    expect(first.body.error.code).toBe('quota_exceeded');
    expect((await client.delete(dbPath(ws, room))).status).toBe(200);
    return { undo: await client.post(restorePath, { target: 'new' }), madeRoom: true };
  }

  test.concurrent.each(['postgres', 'mysql', 'redis'] as const)('%s: manual backup, limit, download, restore into new and same, pre-restore', async (engine) => {
    const ws = (await createWorkspace(client)).id;
    const created = await client.post(dbPath(ws), { name: `Data ${engine}`, engine, memoryMb: MEMORY[engine] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    all.push({ ws, id, engine });
    await status(ws, id, 'running');
    for (const s of WRITE[engine]) await query(engine, ws, id, s);
    expect(await query(engine, ws, id, READ[engine])).toBe('a,b');

    // The engine frozen (docker pause: a stopped one is started again by the platform at once since issue 27): the
    // backup fails with a reason a user can act on, no file is left, and it does not count against the hourly limit.
    await p.docker.getContainer(await containerOf(id)).pause();
    const doomed = await client.post(backupsPath(ws, id));
    expect(doomed.status).toBe(202);
    const failed = await settled(ws, id, doomed.body.id);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/not running|stopped|paused/), sizeBytes: null, sha256: null });
    const dir = path.join(p.agent.dataDir, 'backups', id);
    expect((await readdir(dir).catch(() => [] as string[])).filter((n) => n.includes(doomed.body.id))).toEqual([]);
    await p.docker.getContainer(await containerOf(id)).unpause();
    await until(() => query(engine, ws, id, READ[engine]).catch(() => ''), (v) => v === 'a,b', 60_000, 500);

    // A manual backup: pending → running → completed, with size and checksum; then verified restorable.
    const made = await client.post(backupsPath(ws, id));
    expect(made.status).toBe(202);
    expect(made.body).toMatchObject({ kind: 'manual', status: 'pending', databaseId: id, engine, verification: { status: 'pending' } });
    const backup = await settled(ws, id, made.body.id);
    expect(backup).toMatchObject({ status: 'completed', error: null, sizeBytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(backup.sizeBytes).toBeGreaterThan(0);
    const verified = await until(async () => (await client.get(backupsPath(ws, id, made.body.id))).body, (b) => b.verification.status !== 'pending', 60_000, 300);
    expect(verified.verification).toMatchObject({ status: 'passed' });

    // A second manual backup within the hour: 429 with Retry-After.
    const again = await client.post(backupsPath(ws, id));
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('backup_rate_limited');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(3000);

    // The download: its bytes hash to the recorded checksum, which its header carries.
    const dl = await download(`${backupsPath(ws, id, made.body.id)}/download`);
    expect(dl.status).toBe(200);
    expect({ header: dl.sha256Header, bytes: createHash('sha256').update(dl.bytes).digest('hex'), size: dl.bytes.length }).toEqual({
      header: backup.sha256,
      bytes: backup.sha256,
      size: backup.sizeBytes,
    });

    await query(engine, ws, id, CHANGE[engine]);
    expect(await query(engine, ws, id, READ[engine])).toBe('a,b,c');

    // Restore into a new database: the old rows there, the original keeps the changed ones.
    const intoNew = await client.post(`${backupsPath(ws, id, made.body.id)}/restore`, { target: 'new' });
    expect(intoNew.status).toBe(202);
    expect(intoNew.body).toEqual({ ok: true, databaseId: expect.any(String), preRestoreBackupId: null });
    const fresh = intoNew.body.databaseId as string;
    await until(async () => query(engine, ws, fresh, READ[engine]).catch(() => ''), (v) => v === 'a,b', 180_000, 500);
    await status(ws, fresh, 'running');
    expect(await query(engine, ws, id, READ[engine])).toBe('a,b,c');
    const newDb = (await client.get(dbPath(ws, fresh))).body;
    expect(newDb).toMatchObject({ engine, version: created.body.version, memoryMb: MEMORY[engine] });

    // Restore into the same database: a pre_restore backup first, then the old rows back, credentials unchanged.
    const before = (await client.get(`${dbPath(ws, id)}/connection`)).body.password as string;
    const same = await client.post(`${backupsPath(ws, id, made.body.id)}/restore`, { target: 'same' });
    expect(same.status).toBe(202);
    expect(same.body).toEqual({ ok: true, databaseId: id, preRestoreBackupId: expect.any(String) });
    expect((await client.get(dbPath(ws, id))).body.status).toBe('restoring');
    // One restore or backup at a time.
    expect((await client.post(`${backupsPath(ws, id, made.body.id)}/restore`, { target: 'same' })).body.error?.code).toBe('database_busy');
    await status(ws, id, 'running');
    expect(await query(engine, ws, id, READ[engine])).toBe('a,b');
    expect((await client.get(`${dbPath(ws, id)}/connection`)).body.password).toBe(before);
    const pre = await settled(ws, id, same.body.preRestoreBackupId);
    expect(pre).toMatchObject({ kind: 'pre_restore', status: 'completed' });

    // The pre-restore backup, restored into a new database, holds the changed rows. A restore into new reserves like
    // a create: when the workspace's plan has no room left it is 402, and fits once the first restored one is deleted.
    const { undo, madeRoom } = await restoreIntoNew(engine, ws, `${backupsPath(ws, id, same.body.preRestoreBackupId)}/restore`, fresh);
    expect({ engine, madeRoom }).toEqual({ engine, madeRoom: THIRD_DATABASE_402[engine] });
    expect(undo.status).toBe(202);
    await until(async () => query(engine, ws, undo.body.databaseId, READ[engine]).catch(() => ''), (v) => v === 'a,b,c', 180_000, 500);
    await status(ws, undo.body.databaseId, 'running');
    all.push({ ws, id: undo.body.databaseId, engine });

    // Newest first, a page at a time.
    const page1 = await client.get(`${backupsPath(ws, id)}?limit=1`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((b: { kind: string }) => b.kind)).toEqual(['pre_restore']);
    const page2 = await client.get(`${backupsPath(ws, id)}?limit=1&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((b: { kind: string }) => b.kind)).toEqual(['manual']);
  });

  it('schedules one backup per database a night (missed nights caught up once), skips a stopped one, prunes expired ones', async () => {
    const svc = p.worker.services.backups;
    // A stopped database: skipped, and it says so.
    const { ws, id } = all.find((d) => d.engine === 'redis')!;
    expect((await client.post(`${dbPath(ws, id)}/stop`)).status).toBe(200);
    await status(ws, id, 'stopped');

    now = new Date('2030-01-02T12:00:00Z');
    const first = await svc.schedule();
    expect(first.queued.length).toBe(all.length - 1);
    expect(first.skipped).toEqual([{ databaseId: id, reason: expect.stringMatching(/^Skipped: the database was stopped/) }]);
    // Again the same night: nothing new.
    expect((await svc.schedule()).due).toBe(0);
    // Three nights missed (the control plane down): one backup each, not three.
    now = new Date('2030-01-05T12:00:00Z');
    const caughtUp = await svc.schedule();
    expect(caughtUp.queued.length + caughtUp.skipped.length).toBe(all.length);
    expect((await svc.schedule()).due).toBe(0);

    const running = all.find((d) => d.engine === 'postgres')!;
    const scheduled = await until(
      async () => ((await client.get(`${backupsPath(running.ws, running.id)}?limit=100`)).body.data as { kind: string; status: string }[]).filter((b) => b.kind === 'scheduled'),
      (rows) => rows.map((b) => b.status).join() === 'completed,completed',
      180_000,
      500,
    );
    expect(scheduled).toHaveLength(2);
    const stopped = (await client.get(`${backupsPath(ws, id)}?limit=100`)).body.data.filter((b: { kind: string }) => b.kind === 'scheduled');
    expect(stopped[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/Skipped/) });

    // Wait for every queued backup, then a month later everything has expired: rows and files pruned.
    for (const d of all) {
      await until(async () => (await client.get(`${backupsPath(d.ws, d.id)}?limit=100`)).body.data as { status: string }[], (rows) => rows.every((b) => ['completed', 'failed'].includes(b.status)), 180_000, 500);
    }
    now = new Date('2030-03-01T00:00:00Z');
    const pruned = await svc.prune();
    expect(pruned.waiting).toBe(0);
    expect(pruned.removed).toBeGreaterThan(all.length);
    for (const d of all) {
      expect((await client.get(backupsPath(d.ws, d.id))).body.data).toEqual([]);
      expect(await readdir(path.join(p.agent.dataDir, 'backups', d.id)).catch(() => [])).toEqual([]);
    }
  });
});
