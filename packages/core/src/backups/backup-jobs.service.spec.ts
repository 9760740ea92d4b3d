import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { SecretBox } from '../auth/secret-box';
import type { DatabaseJobStore, DatabaseRecord } from '../databases/database.ports';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import type { BackupAgent, BackupJobStore, BackupRecord, NewBackup } from './backup.ports';
import { BackupJobService } from './backup-jobs.service';

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
    verifyStatus: null, verifyMessage: null, verifiedAt: null, startedAt: null, completedAt: null, expiresAt: new Date(Date.now() + 1e9), deletedAt: null, createdAt: new Date(), ...over,
  };
}

/** An in-memory store and agent: enough of both for the restore paths. */
function setup(agent: Partial<BackupAgent>, runLimitMs?: number) {
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
    complete: async (id, f) => void rows.set(id, { ...rows.get(id)!, status: 'completed', sha256: f.sha256, sizeBytes: f.sizeBytes }),
    fail: async (id, error) => void rows.set(id, { ...rows.get(id)!, status: 'failed', error }),
    setVerification: async () => {},
    schedulable: async () => [],
    scheduledNights: async () => new Set(),
    expired: async () => [],
    remove: async () => {},
    setDatabaseStatus: async (_id, from, status, message) => {
      if (!from.includes(db.current.status)) return false;
      db.current = { ...db.current, status: status as DatabaseRecord['status'], statusMessage: message };
      return true;
    },
    node: async () => ({ id: 'node-1', name: 'n', grpcAddress: '127.0.0.1:1' }),
    failures: async () => [],
  };
  const databases = { getById: async () => db.current } as unknown as DatabaseJobStore;
  const calls: string[] = [];
  const fullAgent: BackupAgent = {
    createBackup: async (_t, i) => {
      calls.push(`backup ${i.backupId}`);
      return { path: 'p', sizeBytes: 5, sha256: 'e'.repeat(64), format: 'pg', replayed: false };
    },
    verifyBackup: async () => ({ ok: true, method: 'm', message: '' }),
    restoreBackup: async (_t, i) => {
      calls.push(`restore ${i.backupId}`);
      return { restoredBytes: 1 };
    },
    deleteBackup: async () => ({ removed: true }),
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
    ...(runLimitMs ? { settings: { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 }, runLimitMs } } : {}),
  });
  const payload = { restoreId: 'r-1', backupId: 'b-old', databaseId: 'db-1', target: 'same' as const, preRestoreBackupId: 'b-pre' };
  return { svc, rows, db, calls, payload };
}

describe('restore into the same database', () => {
  it('makes the pre-restore backup first, then loads, and the database runs again', async () => {
    const t = setup({});
    await t.svc.restore(t.payload, FINAL);
    expect(t.calls).toEqual(['backup b-pre', 'restore b-old']);
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

describe('the database busy on its server with other backup work (an abandoned dump still finishing)', () => {
  const busy = () => Promise.reject(new AppError('database_busy', 'A backup or restore of this database is already running on the server'));

  it('a backup is tried again (the row pending again), and fails with the reason only on its last try', async () => {
    const t = setup({ createBackup: busy });
    t.db.current = database({ status: 'running' });
    t.rows.set('b-new', backup('b-new', { status: 'pending', sizeBytes: null, sha256: null }));
    await expect(t.svc.run('b-new', { number: 1, final: false })).rejects.toMatchObject({ code: 'database_busy' });
    expect(t.rows.get('b-new')!.status).not.toBe('failed');
    expect(await t.svc.run('b-new', FINAL)).toEqual({ failed: 'A backup or restore of this database is already running on the server' });
    expect(t.rows.get('b-new')).toMatchObject({ status: 'failed' });
  });

  it('a restore is tried again without failing the database', async () => {
    const t = setup({ restoreBackup: busy });
    await expect(t.svc.restore(t.payload, { number: 1, final: false })).rejects.toMatchObject({ code: 'database_busy' });
    expect(t.db.current.status).toBe('restoring');
  });
});
