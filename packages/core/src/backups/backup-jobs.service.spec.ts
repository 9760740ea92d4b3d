import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { SecretBox } from '../auth/secret-box';
import type { DatabaseJobStore, DatabaseRecord } from '../databases/database.ports';
import { AppError } from '../errors';
import { isTransient } from '../operations/operation-runner';
import type { Logger } from '../logging';
import type { BackupDestinationRecord } from '../backup-destinations/destination.ports';
import type { BackupAgent, BackupJobStore, BackupRecord, NewBackup, OffsiteTarget } from './backup.ports';
import { BackupJobService } from './backup-jobs.service';
import type { WorkspaceBackupKeys } from '../backup-destinations/backup-key';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet } as unknown as Logger;
const FINAL = { number: 3, final: true };

function database(over: Partial<DatabaseRecord> = {}): DatabaseRecord & { workspaceDeleted: boolean } {
  return {
    id: 'db-1', workspaceId: 'ws-1', nodeId: 'node-1', name: 'orders', slug: 'orders', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
    username: 'slipway', databaseName: 'app', passwordSealed: 'sealed', status: 'restoring', desiredState: 'running', generation: 3, statusMessage: null,
    publicEnabled: false, publicPort: null, allowedCidrs: [], appliedCpuMillis: 250, appliedMemoryMb: 256, runningSince: null, deletedAt: null,
    createdAt: new Date(), updatedAt: new Date(), workspaceDeleted: false, ...over,
  };
}

function backup(id: string, over: Partial<BackupRecord> = {}): BackupRecord {
  return {
    id, workspaceId: 'ws-1', databaseId: 'db-1', nodeId: 'node-1', sourceName: 'orders', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
    kind: 'manual', status: 'completed', error: null, sizeBytes: 10, sha256: 'f'.repeat(64), path: 'backups/db-1/x.pgdump', format: 'pg', night: null,
    verifyStatus: null, verifyMessage: null, verifiedAt: null, startedAt: null, completedAt: null, expiresAt: new Date(Date.now() + 1e9), deletedAt: null, createdAt: new Date(), remote: null, ...over,
  };
}

const DESTINATION: BackupDestinationRecord = {
  id: 'dest-1', workspaceId: 'ws-1', name: 'offsite', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'b', prefix: 'p/', pathStyle: true,
  accessKeyId: 'AKID', secretKeySealed: 'sealed-secret', isDefault: true, createdAt: new Date(), updatedAt: new Date(),
};

/** An in-memory store and agent: enough of both for the restore paths; `offsite` gives the database a destination. */
function setup(agent: Partial<BackupAgent>, runLimitMs?: number, offsite?: { destination: BackupDestinationRecord | null; localCopies?: number; removeFails?: boolean }) {
  const rows = new Map<string, BackupRecord>([
    ['b-old', backup('b-old')],
    ['b-pre', backup('b-pre', { kind: 'pre_restore', status: 'pending', sizeBytes: null, sha256: null })],
  ]);
  const db = { current: database() };
  const store: BackupJobStore = {
    get: async (id) => rows.get(id) ?? null,
    create: async (b: NewBackup) => backup(b.id),
    claim: async (id) => {
      const r = rows.get(id)!;
      if (r.status !== 'pending') return false;
      rows.set(id, { ...r, status: 'running' });
      return true;
    },
    release: async () => {},
    complete: async (id, f) => void rows.set(id, { ...rows.get(id)!, status: 'completed', sha256: f.sha256, sizeBytes: f.sizeBytes, path: f.path, remote: f.remote }),
    fail: async (id, error) => void rows.set(id, { ...rows.get(id)!, status: 'failed', error }),
    setVerification: async () => {},
    schedulable: async () => [],
    scheduledNights: async () => new Set(),
    expired: async () => [...rows.values()].filter((r) => r.deletedAt !== null),
    remove: async (id) => void rows.delete(id),
    setDatabaseStatus: async (_id, from, status, message) => {
      if (!from.includes(db.current.status)) return false;
      db.current = { ...db.current, status: status as DatabaseRecord['status'], statusMessage: message };
      return true;
    },
    node: async () => ({ id: 'node-1', name: 'n', grpcAddress: '127.0.0.1:1' }),
    failures: async () => [],
    localCopiesBeyond: async (keep) => [...rows.values()].filter((r) => r.remote && r.path !== null).slice(keep),
    dropLocalCopy: async (id) => void rows.set(id, { ...rows.get(id)!, path: null }),
  };
  const databases = { getById: async () => db.current } as unknown as DatabaseJobStore;
  const calls: string[] = [];
  const offsiteCalls: (OffsiteTarget | undefined)[] = [];
  const fullAgent: BackupAgent = {
    createBackup: async (_t, i) => {
      calls.push(`backup ${i.backupId}`);
      offsiteCalls.push(i.offsite);
      const remote = i.offsite ? { key: `${i.offsite.key}.pgdump.sealed`, sizeBytes: 9, sha256: 'a'.repeat(64) } : null;
      return { path: i.offsite?.keepLocal === false ? '' : 'p', sizeBytes: 5, sha256: 'e'.repeat(64), format: 'pg', replayed: false, remote };
    },
    verifyBackup: async () => ({ ok: true, method: 'm', message: '' }),
    restoreBackup: async (t, i) => {
      calls.push(`restore ${i.backupId} on ${t.name}`);
      offsiteCalls.push(i.offsite);
      return { restoredBytes: 1 };
    },
    deleteBackup: async (_t, i) => {
      calls.push(`delete local ${i.backupId}`);
      return { removed: true };
    },
    readBackup: async () => {
      throw new Error('unused');
    },
    ...agent,
  };
  const jobs = { enqueue: async () => {} };
  const svc = new BackupJobService({
    backups: store,
    databases,
    agents: fullAgent,
    secrets: { open: () => 'pw', seal: () => 'sealed' } as unknown as SecretBox,
    locks: new InProcessResourceLocks(),
    jobs,
    clock: () => new Date(),
    logger: quiet,
    settings: { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 }, runLimitMs, localCopies: offsite?.localCopies ?? 0 },
    ...(offsite
      ? {
          offsite: {
            destinations: { forDatabase: async () => offsite.destination, get: async () => offsite.destination },
            keys: { keyOf: async () => Buffer.alloc(32, 7) } as unknown as WorkspaceBackupKeys,
            storage: {
              remove: async (target, key) => {
                if (offsite.removeFails) throw new AppError('invalid_state', 'Deleting the backup from the destination failed.');
                calls.push(`delete remote ${key} at ${target.bucket}`);
              },
            },
          },
        }
      : {}),
  });
  const payload = { restoreId: 'r-1', backupId: 'b-old', databaseId: 'db-1', target: 'same' as const, preRestoreBackupId: 'b-pre' };
  return { svc, rows, db, calls, offsiteCalls, payload };
}

describe('restore into the same database', () => {
  it('makes the pre-restore backup first, then loads, and the database runs again', async () => {
    const t = setup({});
    await t.svc.restore(t.payload, FINAL);
    expect(t.calls).toEqual(['backup b-pre', 'restore b-old on n']);
    expect(t.rows.get('b-pre')!.status).toBe('completed');
    expect(t.db.current).toMatchObject({ status: 'running', statusMessage: null });
  });

  it('stops when the pre-restore backup fails: nothing is loaded and the database says why', async () => {
    const t = setup({
      createBackup: async () => {
        throw new AppError('invalid_state', "The server's disk is full");
      },
    });
    await t.svc.restore(t.payload, FINAL);
    expect(t.calls).toEqual([]);
    expect(t.rows.get('b-pre')).toMatchObject({ status: 'failed', error: "The server's disk is full" });
    expect(t.db.current.status).toBe('running');
    expect(t.db.current.statusMessage).toMatch(/did not start: the pre-restore backup b-pre failed: The server's disk is full\. Nothing was changed/);
  });

  it('a load that fails midway leaves the database failed, naming the pre-restore backup', async () => {
    const t = setup({
      restoreBackup: async () => {
        throw new AppError('invalid_state', 'Loading the backup failed (exit 1): ERROR: out of memory');
      },
    });
    await t.svc.restore(t.payload, FINAL);
    expect(t.db.current.status).toBe('failed');
    expect(t.db.current.statusMessage).toMatch(/failed midway: Loading the backup failed .*out of memory\. The data from before the restore is in backup b-pre: restore it/);
  });

  it('an unreachable agent is tried again (not the last try) without failing anything', async () => {
    const t = setup({
      restoreBackup: async () => {
        throw new AppError('node_unavailable', 'no answer');
      },
    });
    await expect(t.svc.restore(t.payload, { number: 1, final: false })).rejects.toMatchObject({ code: 'node_unavailable' });
    expect(t.db.current.status).toBe('restoring');
    expect(t.rows.get('b-pre')!.status).toBe('completed');
  });
});

describe('a backup whose dump stalls', () => {
  it('ends failed with a reason past its limit and lets the database go; a job failed for good fails its row', async () => {
    const locks = new InProcessResourceLocks();
    const t = setup({ createBackup: () => new Promise(() => undefined) }, 50);
    (t.svc as unknown as { deps: { locks: InProcessResourceLocks } }).deps.locks = locks;
    t.rows.set('b-new', backup('b-new', { status: 'pending', sizeBytes: null, sha256: null }));
    t.db.current = database({ status: 'running' });
    expect(await t.svc.run('b-new', FINAL)).toEqual({ failed: expect.stringContaining('did not finish within 0 s') });
    expect(t.rows.get('b-new')).toMatchObject({ status: 'failed', error: expect.stringContaining('back it up again') });
    expect(await locks.tryHold('database', 'db-1', async () => 'free')).toEqual({ value: 'free' });

    t.rows.set('b-stuck', backup('b-stuck', { status: 'running', sizeBytes: null, sha256: null }));
    await t.svc.failedForGood('backup.run', 'b-stuck', 'job stalled more than allowable limit');
    expect(t.rows.get('b-stuck')).toMatchObject({ status: 'failed', error: 'The backup job ended without finishing: job stalled more than allowable limit' });
  });
});

/** A node lookup that knows one server only (the one the backup was made on is gone). */
const onlyNode = (nodeId: string, name: string) => async (id: string) => (id === nodeId ? { id, name, grpcAddress: '127.0.0.1:2' } : null);

describe('backups stored at a destination (issue 33)', () => {
  const pending = (id: string) => backup(id, { status: 'pending', sizeBytes: null, sha256: null, path: null });

  it('sends the destination, the opened secret and the workspace key with the call, and records where the object lives', async () => {
    const t = setup({}, undefined, { destination: DESTINATION });
    t.rows.set('b-new', pending('b-new'));
    t.db.current = database({ status: 'running' });
    expect(await t.svc.run('b-new', FINAL)).toEqual({ completed: true, sizeBytes: 5 });
    expect(t.offsiteCalls[0]).toEqual({
      endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'b', pathStyle: true, accessKeyId: 'AKID', secretAccessKey: 'pw',
      // The largest dump expected: 1.5 × the database's disk (1024 MB), for the upload's part size.
      backupKey: Buffer.alloc(32, 7), key: 'p/ws-1/db-1/b-new', keepLocal: false, sizeHintBytes: 1536 * 1024 * 1024,
    });
    expect(t.rows.get('b-new')).toMatchObject({
      status: 'completed', path: null, remote: { destinationId: 'dest-1', key: 'p/ws-1/db-1/b-new.pgdump.sealed', sizeBytes: 9, sha256: 'a'.repeat(64) },
    });
  });

  it('asks for a local copy when the cache keeps some', async () => {
    const t = setup({}, undefined, { destination: DESTINATION, localCopies: 2 });
    t.rows.set('b-new', pending('b-new'));
    t.db.current = database({ status: 'running' });
    await t.svc.run('b-new', FINAL);
    expect(t.offsiteCalls[0]).toMatchObject({ keepLocal: true });
    expect(t.rows.get('b-new')).toMatchObject({ status: 'completed', path: 'p' });
  });

  it("ends failed with the destination's sentence, and never completed, when the upload fails", async () => {
    const t = setup(
      {
        createBackup: async () => {
          throw new AppError('invalid_state', 'Uploading the backup failed. The bucket b does not exist at 127.0.0.1:9.');
        },
      },
      undefined,
      { destination: DESTINATION },
    );
    t.rows.set('b-new', pending('b-new'));
    t.db.current = database({ status: 'running' });
    expect(await t.svc.run('b-new', FINAL)).toEqual({ failed: 'Uploading the backup failed. The bucket b does not exist at 127.0.0.1:9.' });
    expect(t.rows.get('b-new')).toMatchObject({ status: 'failed', remote: null });
  });

  it('ends failed when the agent answers without an object (an agent older than the destinations)', async () => {
    const t = setup({ createBackup: async () => ({ path: 'p', sizeBytes: 5, sha256: 'e'.repeat(64), format: 'pg', replayed: false, remote: null }) }, undefined, { destination: DESTINATION });
    t.rows.set('b-new', pending('b-new'));
    t.db.current = database({ status: 'running' });
    await t.svc.run('b-new', FINAL);
    expect(t.rows.get('b-new')).toMatchObject({ status: 'failed', error: expect.stringContaining('did not store the backup at the destination offsite') });
  });

  it("restores from the destination on the new database's own server, even one that never held the backup", async () => {
    const t = setup({}, undefined, { destination: DESTINATION });
    t.rows.set('b-old', backup('b-old', { nodeId: 'node-lost', path: null, remote: { destinationId: 'dest-1', key: 'p/k.sealed', sizeBytes: 9, sha256: 'a'.repeat(64) } }));
    t.db.current = database({ id: 'db-2', nodeId: 'node-2', status: 'running' });
    (t.svc as unknown as { deps: { backups: BackupJobStore } }).deps.backups.node = onlyNode('node-2', 'second');
    expect(await t.svc.restore({ restoreId: 'r', backupId: 'b-old', databaseId: 'db-2', target: 'new' }, FINAL)).toEqual({ restored: true, databaseId: 'db-2' });
    expect(t.calls).toEqual(['restore b-old on second']);
    expect(t.offsiteCalls[0]).toMatchObject({ key: 'p/k.sealed', sha256: 'a'.repeat(64), secretAccessKey: 'pw' });
  });

  it('refuses a backup with no file and no destination any more, in words', async () => {
    const t = setup({}, undefined, { destination: null });
    t.rows.set('b-old', backup('b-old', { path: null, remote: { destinationId: null, key: 'p/k.sealed', sizeBytes: 9, sha256: 'a'.repeat(64) } }));
    t.db.current = database({ status: 'running' });
    await t.svc.restore({ restoreId: 'r', backupId: 'b-old', databaseId: 'db-1', target: 'new' }, FINAL);
    expect(t.db.current).toMatchObject({ status: 'failed', statusMessage: expect.stringContaining('its destination was removed') });
  });

  it('retention removes the object at the destination, then the local file, then the row; a destination that fails keeps the row for later', async () => {
    const remote = { destinationId: 'dest-1', key: 'p/k.sealed', sizeBytes: 9, sha256: 'a'.repeat(64) };
    const ok = setup({}, undefined, { destination: DESTINATION, localCopies: 5 });
    ok.rows.set('b-gone', backup('b-gone', { deletedAt: new Date(), remote }));
    expect(await ok.svc.prune()).toMatchObject({ removed: 1, waiting: 0 });
    expect(ok.calls).toEqual(['delete remote p/k.sealed at b', 'delete local b-gone']);
    expect(ok.rows.has('b-gone')).toBe(false);

    const down = setup({}, undefined, { destination: DESTINATION, removeFails: true, localCopies: 5 });
    down.rows.set('b-gone', backup('b-gone', { deletedAt: new Date(), remote }));
    expect(await down.svc.prune()).toMatchObject({ removed: 0, waiting: 1 });
    expect(down.rows.has('b-gone')).toBe(true);
  });

  it('keeps only the newest N local copies of stored backups', async () => {
    const remote = { destinationId: 'dest-1', key: 'k', sizeBytes: 9, sha256: 'a'.repeat(64) };
    const t = setup({}, undefined, { destination: DESTINATION, localCopies: 1 });
    t.rows.clear();
    t.rows.set('b-2', backup('b-2', { remote }));
    t.rows.set('b-1', backup('b-1', { remote }));
    expect(await t.svc.prune()).toMatchObject({ localCopiesRemoved: 1 });
    expect(t.calls).toEqual(['delete local b-1']);
    expect(t.rows.get('b-1')).toMatchObject({ path: null, remote });
    expect(t.rows.get('b-2')).toMatchObject({ path: 'backups/db-1/x.pgdump' });
  });
});

describe('the database busy on its server with other backup work (an abandoned dump still finishing)', () => {
  const busy = () => Promise.reject(new AppError('database_busy', 'A backup or restore of this database is already running on the server'));
  // The job runner tries again only what isTransient calls transient: an AppError that is not fails the job for good.
  const triedAgain = async (work: Promise<unknown>) => {
    const e = await work.then(() => 'answered', (err: unknown) => err);
    expect(e).toMatchObject({ message: 'A backup or restore of this database is already running on the server' });
    expect(isTransient(e)).toBe(true);
  };

  it('a backup is tried again (the row pending again), and fails with the reason only on its last try', async () => {
    const t = setup({ createBackup: busy });
    t.db.current = database({ status: 'running' });
    t.rows.set('b-new', backup('b-new', { status: 'pending', sizeBytes: null, sha256: null }));
    await triedAgain(t.svc.run('b-new', { number: 1, final: false }));
    expect(t.rows.get('b-new')!.status).not.toBe('failed');
    expect(await t.svc.run('b-new', FINAL)).toEqual({ failed: 'A backup or restore of this database is already running on the server' });
    expect(t.rows.get('b-new')).toMatchObject({ status: 'failed' });
  });

  it('a restore is tried again without failing the database', async () => {
    const t = setup({ restoreBackup: busy });
    await triedAgain(t.svc.restore(t.payload, { number: 1, final: false }));
    expect(t.db.current.status).toBe('restoring');
  });
});
