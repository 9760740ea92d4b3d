// Issue 33: a nightly backup that fails is tried again within its window (bounded tries, doubling waits), each try's
// reason visible on the row, one completed row per night at most, and the same alert path as any failed backup.
import { InProcessResourceLocks } from '../convergence/resource-locks';
import type { SecretBox } from '../auth/secret-box';
import type { DatabaseJobStore, DatabaseRecord } from '../databases/database.ports';
import { AppError } from '../errors';
import type { JobName, JobPayloads } from '../jobs';
import type { Logger } from '../logging';
import type { BackupAgent, BackupJobStore, BackupOutcome, BackupRecord, BackupSettings } from './backup.ports';
import { BackupJobService } from './backup-jobs.service';
import { nextNightlyTry, windowEnd } from './schedule';

const FIRST = { number: 1, final: false };
const LAST_QUEUE_TRY = { number: 3, final: true };
const SETTINGS: BackupSettings = { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC', retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 } };
const UNREACHABLE = 'Uploading the backup failed. The endpoint s3.example.com could not be reached (ECONNREFUSED): check its address and port, and that this server may connect to it.';

function database(): DatabaseRecord & { workspaceDeleted: boolean } {
  return {
    id: 'db-1', workspaceId: 'ws-1', nodeId: 'node-1', name: 'orders', slug: 'orders', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
    username: 'slipway', databaseName: 'app', passwordSealed: 'sealed', status: 'running', desiredState: 'running', generation: 3, statusMessage: null,
    publicEnabled: false, publicPort: null, allowedCidrs: [], appliedCpuMillis: 250, appliedMemoryMb: 256, runningSince: null, deletedAt: null,
    createdAt: new Date(), updatedAt: new Date(), workspaceDeleted: false,
  };
}

function backup(over: Partial<BackupRecord>): BackupRecord {
  return {
    id: 'b-night', workspaceId: 'ws-1', databaseId: 'db-1', nodeId: 'node-1', sourceName: 'orders', engine: 'postgres', version: '15', cpuMillis: 250, memoryMb: 256, diskMb: 1024,
    kind: 'scheduled', status: 'pending', error: null, sizeBytes: null, sha256: null, path: null, format: null, night: '2030-01-05',
    verifyStatus: null, verifyMessage: null, verifiedAt: null, startedAt: null, completedAt: null, expiresAt: new Date('2030-02-01T00:00:00Z'), deletedAt: null, createdAt: new Date('2030-01-05T01:30:00Z'), remote: null, ...over,
  };
}

type Queued = { name: JobName; payload: JobPayloads[JobName]; jobId: string; delayMs?: number };

/** An in-memory backup row store with the state table's moves, an agent that fails `failures` times, a recording queue and log. */
function setup(o: { kind?: BackupRecord['kind']; failures: number; failWith?: () => Error; settings?: Partial<BackupSettings> }) {
  const rows = new Map<string, BackupRecord>([['b-night', backup({ kind: o.kind ?? 'scheduled', night: o.kind && o.kind !== 'scheduled' ? null : '2030-01-05' })]]);
  const completions: BackupOutcome[] = [];
  const move = (id: string, from: BackupRecord['status'][], to: BackupRecord['status'], with_: Partial<BackupRecord> = {}) => {
    const r = rows.get(id)!;
    if (!from.includes(r.status)) return false;
    rows.set(id, { ...r, ...with_, status: to });
    return true;
  };
  const store = {
    get: async (id: string) => rows.get(id) ?? null,
    claim: async (id: string) => move(id, ['pending'], 'running', { error: null }),
    release: async (id: string, error: string) => void move(id, ['running'], 'pending', { error }),
    complete: async (id: string, f: BackupOutcome) => {
      if (move(id, ['pending', 'running'], 'completed', { sizeBytes: f.sizeBytes, sha256: f.sha256, error: null })) completions.push(f);
    },
    fail: async (id: string, error: string) => void move(id, ['pending', 'running'], 'failed', { error }),
    node: async () => ({ id: 'node-1', name: 'n', grpcAddress: '127.0.0.1:1' }),
  } as unknown as BackupJobStore;
  let failuresLeft = o.failures;
  const agentCalls: string[] = [];
  const agents = {
    createBackup: async (_t, i) => {
      agentCalls.push(i.backupId);
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw o.failWith?.() ?? new AppError('invalid_state', UNREACHABLE);
      }
      return { path: '', sizeBytes: 5, sha256: 'e'.repeat(64), format: 'pg', replayed: false, remote: null };
    },
  } as Partial<BackupAgent> as BackupAgent;
  const queued: Queued[] = [];
  const jobs = {
    enqueue: async (name: JobName, payload: JobPayloads[JobName], options: { jobId: string; delayMs?: number }) => void queued.push({ name, payload, ...options }),
  };
  const warnings: { msg: string; fields: Record<string, unknown> }[] = [];
  const logger = { info: () => {}, debug: () => {}, error: () => {}, warn: (fields: Record<string, unknown>, msg: string) => warnings.push({ msg, fields }) } as unknown as Logger;
  const now = { current: new Date('2030-01-05T01:30:00Z') };
  const settings = { ...SETTINGS, ...o.settings };
  const svc = new BackupJobService({
    backups: store,
    databases: { getById: async () => database() } as unknown as DatabaseJobStore,
    agents,
    secrets: { open: () => 'pw' } as unknown as SecretBox,
    locks: new InProcessResourceLocks(),
    jobs,
    clock: () => now.current,
    logger,
    settings,
  });
  /** Runs the next queued retry as the worker would once its delay passed (the clock moved to its time). */
  const runQueued = async () => {
    const job = queued.shift()!;
    now.current = new Date(now.current.getTime() + (job.delayMs ?? 0));
    const p = job.payload as JobPayloads['backup.verify'];
    return svc.run(p.backupId, FIRST, p.nightTries ?? []);
  };
  return { svc, rows, completions, queued, warnings, agentCalls, now, runQueued, settings };
}

const failedAlerts = (w: { msg: string }[]) => w.filter((x) => x.msg === 'database backup failed');

describe('nightly backups that fail are tried again within their window (issue 33)', () => {
  it('tries again 5, 10 and 20 minutes later, says each reason on the row, and ends failed after the 4th try with one alert', async () => {
    const t = setup({ failures: 10 });
    await expect(t.svc.run('b-night', FIRST)).resolves.toEqual({ retrying: '2030-01-05T01:35:00.000Z', error: expect.any(String) });
    expect(t.rows.get('b-night')).toMatchObject({ status: 'pending', error: expect.stringContaining('Nightly backup try 1 of 4 failed: Uploading the backup failed.') });
    expect(t.rows.get('b-night')!.error).toContain("It is tried again at 01:35:00 UTC, within the night's window (until 05:00:00 UTC).");
    expect(t.queued).toEqual([{ name: 'backup.run', payload: { backupId: 'b-night', nightTries: [`01:30:00 UTC: ${UNREACHABLE}`] }, jobId: 'b-night-try2', delayMs: 5 * 60_000 }]);
    // A try that fails is not yet a failed backup: no alert until the night's tries are spent.
    expect(failedAlerts(t.warnings)).toEqual([]);
    expect(t.warnings.map((w) => w.msg)).toEqual(['nightly backup try failed; tried again within the window']);

    await t.runQueued();
    expect(t.queued[0]).toMatchObject({ jobId: 'b-night-try3', delayMs: 10 * 60_000 });
    expect(t.rows.get('b-night')!.error).toMatch(/^Nightly backup try 2 of 4 failed: .* Earlier tries: #1 at 01:30:00 UTC: Uploading the backup failed\./);
    await t.runQueued();
    expect(t.queued[0]).toMatchObject({ jobId: 'b-night-try4', delayMs: 20 * 60_000 });
    await expect(t.runQueued()).resolves.toEqual({ failed: expect.any(String) });

    expect(t.queued).toEqual([]);
    expect(t.agentCalls).toHaveLength(4);
    const row = t.rows.get('b-night')!;
    expect(row.status).toBe('failed');
    // The last reason first (what to act on), then every earlier try with its time.
    expect(row.error).toBe(
      `${UNREACHABLE} (Nightly backup: it was tried 4 times. Earlier tries: #1 at 01:30:00 UTC: ${UNREACHABLE} #2 at 01:35:00 UTC: ${UNREACHABLE} #3 at 01:45:00 UTC: ${UNREACHABLE})`,
    );
    // The same alert path as every failed backup: one `database backup failed` warning, with the reason.
    expect(failedAlerts(t.warnings)).toEqual([{ msg: 'database backup failed', fields: expect.objectContaining({ backupId: 'b-night', kind: 'scheduled', error: row.error }) }]);
  });

  it('completes once when a later try works; a duplicate delivery of a try changes nothing', async () => {
    const t = setup({ failures: 2 });
    await t.svc.run('b-night', FIRST);
    await t.runQueued();
    await expect(t.runQueued()).resolves.toEqual({ completed: true, sizeBytes: 5 });
    expect(t.rows.get('b-night')).toMatchObject({ status: 'completed', error: null });
    // No further try; its verification queued, as for every completed backup.
    expect(t.queued.map((j) => j.jobId)).toEqual(['verify-b-night']);
    // The same job delivered again (a worker cut after it finished), or the first one again: nothing more.
    await expect(t.svc.run('b-night', FIRST, ['01:30:00 UTC: x'])).resolves.toEqual({ skipped: 'already completed' });
    await expect(t.svc.run('b-night', FIRST)).resolves.toEqual({ skipped: 'already completed' });
    expect(t.completions).toHaveLength(1);
    expect(t.agentCalls).toHaveLength(3);
    expect(failedAlerts(t.warnings)).toEqual([]);
  });

  it('does not try again past the end of the window: the backup fails with the reason and says so', async () => {
    const t = setup({ failures: 10 });
    t.now.current = new Date('2030-01-05T04:58:00Z');
    await expect(t.svc.run('b-night', FIRST)).resolves.toEqual({ failed: expect.any(String) });
    expect(t.queued).toEqual([]);
    expect(t.rows.get('b-night')).toMatchObject({
      status: 'failed',
      error: `${UNREACHABLE} (Nightly backup: no time was left in the night's window (until 05:00:00 UTC) for another try.)`,
    });
    expect(failedAlerts(t.warnings)).toHaveLength(1);
  });

  it('leaves a transient failure to the queue first (agent unreachable, tries left), then tries again within the window', async () => {
    const t = setup({ failures: 10, failWith: () => new AppError('node_unavailable', 'The agent of n did not answer') });
    await expect(t.svc.run('b-night', FIRST)).rejects.toThrow('did not answer');
    expect(t.rows.get('b-night')).toMatchObject({ status: 'pending', error: 'try 1 failed: The agent of n did not answer' });
    expect(t.queued).toEqual([]);
    // The queue's last try: the night's retry takes over.
    await t.svc.run('b-night', LAST_QUEUE_TRY);
    expect(t.queued).toHaveLength(1);
    expect(t.rows.get('b-night')!.status).toBe('pending');
  });

  it('fails a manual backup at once, as before (a user asked for it now and sees the reason)', async () => {
    const t = setup({ kind: 'manual', failures: 1 });
    await t.svc.run('b-night', FIRST);
    expect(t.rows.get('b-night')).toMatchObject({ status: 'failed', error: UNREACHABLE });
    expect(t.queued).toEqual([]);
    expect(failedAlerts(t.warnings)).toHaveLength(1);
  });

  it('honours the tries and first wait of the settings', async () => {
    const t = setup({ failures: 10, settings: { nightlyRetry: { tries: 2, firstDelayMs: 60_000 } } });
    await t.svc.run('b-night', FIRST);
    expect(t.queued[0]).toMatchObject({ delayMs: 60_000 });
    await t.runQueued();
    expect(t.rows.get('b-night')).toMatchObject({ status: 'failed', error: expect.stringContaining('(Nightly backup: it was tried 2 times.') });
  });
});

describe('the window of a night', () => {
  it('ends at the window end hour, past midnight included', () => {
    expect(windowEnd('2030-01-05', SETTINGS).toISOString()).toBe('2030-01-05T05:00:00.000Z');
    expect(windowEnd('2030-01-05', { window: { startHour: 22, endHour: 2 }, timeZone: 'UTC' }).toISOString()).toBe('2030-01-06T02:00:00.000Z');
    expect(windowEnd('2030-07-05', { window: { startHour: 1, endHour: 5 }, timeZone: 'Europe/Berlin' }).toISOString()).toBe('2030-07-05T03:00:00.000Z');
  });

  it('places the next try after a doubling wait, none past the window or the last try', () => {
    const at = (iso: string, n: number) => nextNightlyTry(new Date(iso), '2030-01-05', n, SETTINGS);
    expect(at('2030-01-05T01:00:00Z', 1)).toEqual(new Date('2030-01-05T01:05:00.000Z'));
    expect(at('2030-01-05T01:00:00Z', 3)).toEqual(new Date('2030-01-05T01:20:00.000Z'));
    expect(at('2030-01-05T01:00:00Z', 4)).toBeNull();
    expect(at('2030-01-05T04:56:00Z', 1)).toBeNull();
  });
});
