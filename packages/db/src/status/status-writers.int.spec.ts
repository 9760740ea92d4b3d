// The status writers on the real PostgreSQL (issue 27): from every status to every status, a move happens exactly
// when the state table lists it, and a refused move leaves the row as it was; the stores built on them (a backup's
// claim, a settlement of a stale generation) refuse the same way.
import { randomUUID } from 'node:crypto';
import { BACKUP_TRANSITIONS, canMoveBackup, canMoveDatabase, DATABASE_TRANSITIONS, type BackupStatus, type DatabaseStatus } from '@slipway/core';
import { createTestDatabase, type TestDatabase } from '@slipway/testing';
import { createDb, type Db } from '../client';
import { PrismaBackupJobStore } from '../jobs/backup.store';
import { PrismaDatabaseJobStore } from '../jobs/database-job.store';
import { insertBackup, moveBackupStatus } from './backup-status';
import { insertDatabase, moveDatabaseStatus } from './database-status';

const DATABASE = Object.keys(DATABASE_TRANSITIONS) as DatabaseStatus[];
const BACKUP = Object.keys(BACKUP_TRANSITIONS) as BackupStatus[];
const pairs = <S>(all: S[]) => all.flatMap((from) => all.map((to) => [from, to] as const));
/** What a move shows when the table lists it (moved, the new status and message) and when not (nothing written). */
const outcome = (from: string, to: string, listed: boolean) => (listed ? `${from}→${to}: moved, ${to} (after)` : `${from}→${to}: refused, ${from} (before)`);

describe('status writers (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Db;
  let workspaceId: string;
  let databaseId: string;
  let backupId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.url);
    const plan = await db.plan.create({ data: { slug: `p-${randomUUID()}`, version: 1, name: 'P', kind: 'trial', priceCents: 0, currency: 'EUR', cpuMillis: 1000, memoryMb: 1024, maxMembers: 1 } });
    const ws = await db.workspace.create({ data: { name: 'W', slug: `w-${randomUUID()}`, planId: plan.id, trialEndsAt: new Date(), graceEndsAt: new Date() } });
    workspaceId = ws.id;
    const row = await insertDatabase(db, {
      id: randomUUID(), workspaceId, nodeId: null, name: 'db', slug: 'db', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
      username: 'u', databaseName: 'app', passwordSealed: 'sealed',
    });
    databaseId = row.id;
    expect(row.status).toBe('provisioning');
    const b = await insertBackup(db, {
      id: randomUUID(), workspaceId, databaseId, nodeId: null, sourceName: 'db', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
      kind: 'manual', expiresAt: new Date(Date.now() + 86_400_000), createdAt: new Date(),
    });
    backupId = b.id;
    expect(b.status).toBe('pending');
  });

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  /** The row put in `from` by hand (the test's own write), then the writer's move; what moved and what the row says. */
  async function databaseMove(from: DatabaseStatus, to: DatabaseStatus) {
    await db.$executeRaw`UPDATE databases SET status = ${from}, status_message = 'before' WHERE id = ${databaseId}::uuid`;
    const moved = await moveDatabaseStatus(db, { id: databaseId }, { to, message: 'after' });
    const row = await db.database.findUniqueOrThrow({ where: { id: databaseId } });
    return `${from}→${to}: ${moved ? 'moved' : 'refused'}, ${row.status} (${row.statusMessage})`;
  }

  async function backupMove(from: BackupStatus, to: BackupStatus) {
    await db.$executeRaw`UPDATE database_backups SET status = ${from}, error = 'before' WHERE id = ${backupId}::uuid`;
    const moved = await moveBackupStatus(db, backupId, { to, with: { error: 'after' } });
    const row = await db.databaseBackup.findUniqueOrThrow({ where: { id: backupId } });
    return `${from}→${to}: ${moved ? 'moved' : 'refused'}, ${row.status} (${row.error})`;
  }

  it('a database moves exactly as its state table lists, and a refused move writes nothing', async () => {
    const seen: string[] = [];
    for (const [from, to] of pairs(DATABASE)) seen.push(await databaseMove(from, to));
    expect(seen).toEqual(pairs(DATABASE).map(([from, to]) => outcome(from, to, canMoveDatabase(from, to))));
  });

  it('a backup moves exactly as its state table lists, and a refused move writes nothing', async () => {
    const seen: string[] = [];
    for (const [from, to] of pairs(BACKUP)) seen.push(await backupMove(from, to));
    expect(seen).toEqual(pairs(BACKUP).map(([from, to]) => outcome(from, to, canMoveBackup(from, to))));
  });

  it('what a caller allows narrows the table: a restore begins only from running', async () => {
    await db.$executeRaw`UPDATE databases SET status = 'stopped' WHERE id = ${databaseId}::uuid`;
    expect(await moveDatabaseStatus(db, { id: databaseId }, { from: ['running'], to: 'restoring' })).toBe(false);
    // stopped → restoring is not in the table, whatever the caller allows.
    expect(await moveDatabaseStatus(db, { id: databaseId }, { from: ['stopped'], to: 'restoring' })).toBe(false);
    await db.$executeRaw`UPDATE databases SET status = 'running' WHERE id = ${databaseId}::uuid`;
    expect(await moveDatabaseStatus(db, { id: databaseId }, { from: ['running'], to: 'restoring' })).toBe(true);
  });

  it('the stores refuse the same way: a claim of a finished backup, a settlement of a stale generation, a restore move from deleting', async () => {
    const backups = new PrismaBackupJobStore(db);
    const databases = new PrismaDatabaseJobStore(db);
    await db.$executeRaw`UPDATE database_backups SET status = 'completed' WHERE id = ${backupId}::uuid`;
    expect(await backups.claim(backupId, new Date())).toBe(false);
    await backups.fail(backupId, 'too late', new Date());
    expect(await db.databaseBackup.findUniqueOrThrow({ where: { id: backupId } })).toMatchObject({ status: 'completed' });

    await db.$executeRaw`UPDATE databases SET status = 'running', generation = 5 WHERE id = ${databaseId}::uuid`;
    expect(await databases.settle(databaseId, 4, { status: 'stopped', statusMessage: null })).toBe(false);
    expect(await databases.settle(databaseId, 5, { status: 'stopped', statusMessage: null })).toBe(true);
    await db.$executeRaw`UPDATE databases SET status = 'deleting' WHERE id = ${databaseId}::uuid`;
    expect(await backups.setDatabaseStatus(databaseId, ['deleting', 'restoring'], 'running', null)).toBe(false);
    expect(await db.database.findUniqueOrThrow({ where: { id: databaseId } })).toMatchObject({ status: 'deleting' });
  });
});
