import type { BackupRestorePayload } from '../jobs';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { SecretBox } from '../auth/secret-box';
import type { DatabaseJobStore, DatabaseRecord } from '../databases/database.ports';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { BACKUP_RESTORE_JOB, BACKUP_RUN_JOB, BACKUP_VERIFY_JOB } from '../jobs';
import type { Logger } from '../logging';
import { isTransient, type Attempt } from '../operations/operation-runner';
import type { AgentTarget } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { BackupDestinationRecord } from '../backup-destinations/destination.ports';
import type { WorkspaceBackupKeys } from '../backup-destinations/backup-key';
import {
  DEFAULT_BACKUP_SETTINGS,
  type BackupAgent,
  type BackupDestinationJobStore,
  type BackupJobStore,
  type BackupRecord,
  type BackupSettings,
  type OffsiteStorage,
  type OffsiteTarget,
} from './backup.ports';
import { DEFAULT_NIGHTLY_RETRY, latestSlot, newBackup, nextNightlyTry, windowEnd } from './schedule';

/**
 * An agent call worth another try: the agent unreachable, or the database busy on its server with other backup work
 * (an abandoned dump still finishing after its limit, a restore whose job was cut): that ends by itself.
 */
const worthRetry = (e: unknown): boolean => isTransient(e) || (e instanceof AppError && e.code === 'database_busy');

/**
 * What a try worth another one throws: the job runner tries again only what is transient (an AppError that is not is
 * failed for good at once), so a busy database's refusal goes back as a plain error carrying its sentence.
 */
class BusyTryAgain extends Error {
  override readonly name = 'BusyTryAgain';
}
const again = (e: unknown): unknown => (e instanceof AppError && e.code === 'database_busy' ? new BusyTryAgain(e.message) : e);

export interface BackupJobDeps {
  backups: BackupJobStore;
  databases: DatabaseJobStore;
  agents: BackupAgent;
  secrets: SecretBox;
  /** The databases' per-id locks (the converge, rotate and teardown jobs and the reconciler's repairs hold them too). */
  locks: ResourceLocks;
  jobs: JobQueue;
  clock: Clock;
  logger: Logger;
  settings?: BackupSettings;
  /** How long a restore into a new database waits for it to run (default 10 minutes). */
  newDatabaseWaitMs?: number;
  /** While it waits, the restore job is queued again this much later (default 2 s): no worker slot is held meanwhile. */
  newDatabasePollMs?: number;
  /**
   * Issue 33: backup destinations. A database whose destination is in effect (its own, else the workspace's default)
   * has every backup streamed there by its agent; retention removes the objects too. Absent: backups stay on the server.
   */
  offsite?: { destinations: BackupDestinationJobStore; keys: WorkspaceBackupKeys; storage: OffsiteStorage };
}

/** What a scheduler pass did. */
export interface ScheduleReport {
  due: number;
  queued: string[];
  skipped: { databaseId: string; reason: string }[];
}

/**
 * Database backups, job side (issue 13): `backup.run` (a dump through the agent, under the database's lock, then a
 * verification queued), `backup.verify`, `backup.restore` (into the same database after its pre_restore backup, or
 * into a new one once it runs), `backup.schedule` (the night's due backups) and `backup.prune` (expired files and
 * rows). A transient failure (agent unreachable) is tried again; anything else, or the last try, ends the backup
 * `failed` with the reason: a backup never fails silently.
 */
export class BackupJobService {
  private readonly settings: BackupSettings;

  constructor(private readonly deps: BackupJobDeps) {
    this.settings = deps.settings ?? DEFAULT_BACKUP_SETTINGS;
  }

  // ------------------------------------------------------------------------------------------------ backup.run

  /** `nightTries`: a nightly backup tried again within its window (issue 33): what the earlier tries failed with. */
  async run(backupId: string, attempt: Attempt, nightTries: readonly string[] = []): Promise<unknown> {
    const b = await this.deps.backups.get(backupId);
    if (!b || b.deletedAt) return { skipped: 'no such backup' };
    if (b.status === 'completed' || b.status === 'failed') return { skipped: `already ${b.status}` };
    return this.deps.locks.hold('database', b.databaseId, async () => {
      const outcome = await this.dump(b, attempt, ['running'], nightTries);
      if (outcome.ok) return { completed: true, sizeBytes: outcome.sizeBytes };
      return 'retryAt' in outcome ? { retrying: outcome.retryAt.toISOString(), error: outcome.error } : { failed: outcome.error };
    });
  }

  /**
   * Makes the backup `b` (the caller holds the database's lock); the row ends completed or failed — or, for a
   * nightly backup whose try failed with time left in its window, pending again with a later try queued.
   */
  private async dump(
    b: BackupRecord,
    attempt: Attempt,
    allowed: readonly string[],
    nightTries: readonly string[] = [],
  ): Promise<{ ok: true; sizeBytes: number } | { ok: false; error: string } | { ok: false; error: string; retryAt: Date }> {
    const now = this.deps.clock();
    if (b.status === 'pending' && !(await this.deps.backups.claim(b.id, now))) {
      const again = await this.deps.backups.get(b.id);
      if (again?.status === 'completed') return { ok: true, sizeBytes: again.sizeBytes ?? 0 };
      if (again?.status !== 'running') return { ok: false, error: again?.error ?? 'the backup was not pending' };
    }
    const fail = async (error: string) => {
      await this.deps.backups.fail(b.id, error, this.deps.clock());
      this.deps.logger.warn({ backupId: b.id, databaseId: b.databaseId, kind: b.kind, error }, 'database backup failed');
      return { ok: false as const, error };
    };
    const db = await this.deps.databases.getById(b.databaseId);
    if (!db || db.deletedAt || db.workspaceDeleted || db.status === 'deleting') return fail('The database was deleted before its backup ran');
    if (!allowed.includes(db.status)) return fail(`The database was ${db.status} when its backup ran: start it (or wait for its current work) and back it up again`);
    const target = await this.target(b.nodeId ?? db.nodeId);
    if (!target) return fail("The database's server is gone");
    try {
      const destination = (await this.deps.offsite?.destinations.forDatabase(b.databaseId)) ?? null;
      const offsite = destination ? await this.offsiteOf(destination, b, `${destination.prefix}${b.workspaceId}/${b.databaseId}/${b.id}`) : undefined;
      const limitMs = this.settings.runLimitMs ?? DEFAULT_RUN_LIMIT_MS;
      const file = await withinLimit(
        this.deps.agents.createBackup(target, { databaseId: b.databaseId, backupId: b.id, ...this.credentials(db), ...(offsite ? { offsite: { ...offsite, keepLocal: (this.settings.localCopies ?? 0) > 0, sizeHintBytes: Math.ceil(db.diskMb * 1.5) * 1024 * 1024 } } : {}) }),
        limitMs,
        `The dump did not finish within ${describeMs(limitMs)} (the database's server stopped answering for it): the backup was abandoned; back it up again once the database answers`,
      );
      if (destination && !file.remote) {
        return fail(`The database's server did not store the backup at the destination ${destination.name} (its agent predates off-server backups): update the agent on that server and back up again`);
      }
      const remote = destination && file.remote ? { destinationId: destination.id, ...file.remote } : null;
      await this.deps.backups.complete(b.id, { sizeBytes: file.sizeBytes, sha256: file.sha256, path: file.path || null, format: file.format, remote }, this.deps.clock());
      this.deps.logger.info({ backupId: b.id, databaseId: b.databaseId, kind: b.kind, sizeBytes: file.sizeBytes, remoteKey: remote?.key }, 'database backed up');
      await this.deps.jobs.enqueue(BACKUP_VERIFY_JOB, { backupId: b.id }, { jobId: `verify-${b.id}` }).catch((err: unknown) => {
        this.deps.logger.warn({ backupId: b.id, err: (err as Error).message }, 'verification not queued');
      });
      return { ok: true, sizeBytes: file.sizeBytes };
    } catch (e) {
      const reason = reasonOf(e);
      if (worthRetry(e) && !attempt.final) {
        await this.deps.backups.release(b.id, `try ${attempt.number} failed: ${reason}`);
        throw again(e);
      }
      return (await this.tryAgainTonight(b, reason, nightTries)) ?? fail(nightlyReason(b, reason, nightTries, this.settings));
    }
  }

  /**
   * Issue 33: a nightly backup whose try failed is tried again later in its window (tries `nightlyRetry.tries` in
   * all, waits doubling from `firstDelayMs`): the row goes back to `pending` and says what each try failed with and
   * when the next one runs; a delayed `backup.run` carries the earlier reasons. Null: not a nightly backup, no try
   * left, or no time left in the window (the caller fails the row).
   */
  private async tryAgainTonight(b: BackupRecord, reason: string, earlier: readonly string[]): Promise<{ ok: false; error: string; retryAt: Date } | null> {
    if (b.kind !== 'scheduled' || !b.night) return null;
    const now = this.deps.clock();
    const tryNumber = earlier.length + 1;
    const at = nextNightlyTry(now, b.night, tryNumber, this.settings);
    if (!at) return null;
    const tries = [...earlier, `${clockTime(now)}: ${reason.slice(0, 1000)}`];
    const total = (this.settings.nightlyRetry ?? DEFAULT_NIGHTLY_RETRY).tries;
    const error = `Nightly backup try ${tryNumber} of ${total} failed: ${reason} It is tried again at ${clockTime(at)}, within the night's window (until ${clockTime(windowEnd(b.night, this.settings))}).${earlierText(earlier)}`;
    try {
      await this.deps.jobs.enqueue(BACKUP_RUN_JOB, { backupId: b.id, nightTries: tries }, { jobId: `${b.id}-try${tryNumber + 1}`, delayMs: at.getTime() - now.getTime() });
    } catch (err) {
      this.deps.logger.warn({ backupId: b.id, err: reasonOf(err) }, 'nightly backup retry not queued');
      return null;
    }
    await this.deps.backups.release(b.id, error);
    this.deps.logger.warn({ backupId: b.id, databaseId: b.databaseId, night: b.night, try: tryNumber, nextTryAt: at.toISOString(), error: reason }, 'nightly backup try failed; tried again within the window');
    return { ok: false, error, retryAt: at };
  }

  /**
   * A backup job that will not be tried again (its last try failed, it stalled too often, its payload was bad): the
   * row it owns must not stay running. `backup.run`: the backup ends `failed` with the reason; `backup.verify`: its
   * verification `failed`; `backup.restore`: a database still `restoring` ends `failed` with the reason.
   */
  async failedForGood(job: 'backup.run' | 'backup.verify' | 'backup.restore', id: string, reason: string): Promise<void> {
    const now = this.deps.clock();
    if (job === 'backup.run') {
      await this.deps.backups.fail(id, `The backup job ended without finishing: ${reason}`, now);
      return;
    }
    if (job === 'backup.verify') {
      const b = await this.deps.backups.get(id);
      if (b && b.status === 'completed' && b.verifyStatus === null) await this.deps.backups.setVerification(id, { status: 'failed', message: `The verification job ended without finishing: ${reason}` }, now);
      return;
    }
    await this.deps.backups.setDatabaseStatus(id, ['restoring'], 'failed', `The restore job ended without finishing: ${reason}. Restore the backup again.`);
  }

  // ------------------------------------------------------------------------------------------------ backup.verify

  /** Proves a completed backup restorable (see the agent's VerifyBackup) and records the result. */
  async verify(backupId: string): Promise<unknown> {
    const b = await this.deps.backups.get(backupId);
    if (!b || b.deletedAt || b.status !== 'completed') return { skipped: 'not a completed backup' };
    const db = await this.deps.databases.getById(b.databaseId);
    // A backup kept only at its destination is checked there: downloaded, opened, its checksum compared.
    const offsite = b.path === null && b.remote ? await this.storedOffsite(b) : undefined;
    const target = await this.target(b.nodeId ?? db?.nodeId ?? null);
    const gone = !target ? 'The server holding the backup is gone' : b.path === null && !offsite ? 'The backup has no file on its server and its destination was removed' : null;
    if (gone || !target) {
      await this.deps.backups.setVerification(b.id, { status: 'failed', message: gone ?? 'The server holding the backup is gone' }, this.deps.clock());
      return { ok: false };
    }
    const creds = db ? this.credentials(db) : { engine: b.engine, username: '', databaseName: '', password: '' };
    const r = await this.deps.agents.verifyBackup(target, { databaseId: b.databaseId, backupId: b.id, ...creds, ...(offsite ? { offsite } : {}) }).catch((e: unknown) => {
      if (isTransient(e)) throw e;
      return { ok: false, method: 'agent', message: reasonOf(e) };
    });
    await this.deps.backups.setVerification(b.id, { status: r.ok ? 'passed' : 'failed', message: `${r.method}: ${r.message}` }, this.deps.clock());
    if (!r.ok) this.deps.logger.error({ backupId: b.id, databaseId: b.databaseId, message: r.message }, 'backup verification failed');
    return r;
  }

  // ------------------------------------------------------------------------------------------------ backup.restore

  async restore(p: BackupRestorePayload, attempt: Attempt): Promise<unknown> {
    const b = await this.deps.backups.get(p.backupId);
    if (!b || b.status !== 'completed' || !b.sha256) {
      const message = `The backup ${p.backupId} is gone or not completed: nothing was restored`;
      await this.deps.backups.setDatabaseStatus(p.databaseId, ['restoring'], p.target === 'same' ? 'running' : 'failed', message);
      return { failed: message };
    }
    return p.target === 'same' ? this.restoreSame(b, p, attempt) : this.restoreNew(b, p, attempt);
  }

  private restoreSame(b: BackupRecord, p: BackupRestorePayload, attempt: Attempt): Promise<unknown> {
    return this.deps.locks.hold('database', p.databaseId, async () => {
      const pre = p.preRestoreBackupId ? await this.deps.backups.get(p.preRestoreBackupId) : null;
      if (!pre) return this.unchanged(p, b, 'its pre-restore backup is missing');
      if (pre.status !== 'completed') {
        // The current state saved first; if that fails, the restore stops and nothing changes.
        const saved = await this.dump(pre, attempt, ['restoring', 'running']);
        if (!saved.ok) return this.unchanged(p, b, `the pre-restore backup ${pre.id} failed: ${saved.error}`);
      }
      // Restoring again, whatever a repair of the reconciler wrote before this job took the lock.
      const message = `restoring backup ${b.id}; the data from before is in backup ${pre.id}`;
      if (!(await this.deps.backups.setDatabaseStatus(p.databaseId, ['restoring', 'running'], 'restoring', message))) {
        const now = await this.deps.databases.getById(p.databaseId);
        return { skipped: `the database is ${now?.status ?? 'gone'}` };
      }
      const db = await this.deps.databases.getById(p.databaseId);
      if (!db || db.deletedAt) return { skipped: 'the database is gone' };
      try {
        await this.load(b, db);
      } catch (e) {
        if (worthRetry(e) && !attempt.final) throw again(e);
        const message = `The restore of backup ${b.id} failed midway: ${reasonOf(e)}. The data from before the restore is in backup ${pre.id}: restore it (target "same") to go back.`;
        await this.deps.backups.setDatabaseStatus(p.databaseId, ['restoring'], 'failed', message);
        this.deps.logger.error({ backupId: b.id, databaseId: p.databaseId, preRestoreBackupId: pre.id, err: reasonOf(e) }, 'restore failed');
        return { failed: message };
      }
      await this.deps.backups.setDatabaseStatus(p.databaseId, ['restoring'], 'running', null);
      this.deps.logger.info({ backupId: b.id, databaseId: p.databaseId, preRestoreBackupId: pre.id }, 'backup restored into the same database');
      return { restored: true, preRestoreBackupId: pre.id };
    });
  }

  private async unchanged(p: BackupRestorePayload, b: BackupRecord, why: string): Promise<unknown> {
    const message = `The restore of backup ${b.id} did not start: ${why}. Nothing was changed.`;
    await this.deps.backups.setDatabaseStatus(p.databaseId, ['restoring'], 'running', message);
    return { failed: message };
  }

  private async restoreNew(b: BackupRecord, p: BackupRestorePayload, attempt: Attempt): Promise<unknown> {
    // The new database is created by its converge job: until it runs, this job is queued again a little later (a
    // delayed job holds no worker slot), up to newDatabaseWaitMs in all.
    const db = await this.deps.databases.getById(p.databaseId);
    if (!db) return { skipped: 'the new database is gone' };
    if (db.status !== 'running' && db.status !== 'restoring') {
      if (['failed', 'deleting', 'stopped'].includes(db.status) || db.deletedAt) return { skipped: `the new database is ${db.status}: nothing to restore into` };
      const pollMs = this.deps.newDatabasePollMs ?? 2_000;
      const waited = (p.waited ?? 0) + 1;
      if (waited * pollMs > (this.deps.newDatabaseWaitMs ?? 600_000)) {
        const message = `The new database did not start within ${describeMs(this.deps.newDatabaseWaitMs ?? 600_000)}: backup ${b.id} was not loaded. Delete this database and restore the backup again.`;
        await this.deps.backups.setDatabaseStatus(db.id, ['provisioning', 'restoring'], 'failed', message);
        return { failed: message };
      }
      await this.deps.jobs.enqueue(BACKUP_RESTORE_JOB, { ...p, waited }, { jobId: `restore-${p.restoreId}-w${waited}`, delayMs: pollMs });
      return { waiting: db.status, waited };
    }
    if (db.nodeId && b.nodeId && db.nodeId !== b.nodeId && !(b.remote && (await this.storedOffsite(b)))) {
      const message = `The backup ${b.id} is on another server than this database: it cannot be loaded here`;
      await this.deps.backups.setDatabaseStatus(db.id, ['running', 'restoring'], 'failed', message);
      return { failed: message };
    }
    return this.deps.locks.hold('database', db.id, async () => {
      if (!(await this.deps.backups.setDatabaseStatus(db.id, ['running', 'restoring'], 'restoring', `loading backup ${b.id}`))) return { skipped: 'the new database is no longer running' };
      try {
        await this.load(b, db);
      } catch (e) {
        if (worthRetry(e) && !attempt.final) throw again(e);
        const message = `Loading backup ${b.id} failed: ${reasonOf(e)}. Delete this database and restore the backup again.`;
        await this.deps.backups.setDatabaseStatus(db.id, ['restoring'], 'failed', message);
        return { failed: message };
      }
      await this.deps.backups.setDatabaseStatus(db.id, ['restoring'], 'running', null);
      this.deps.logger.info({ backupId: b.id, databaseId: db.id }, 'backup restored into a new database');
      return { restored: true, databaseId: db.id };
    });
  }

  /**
   * Loads `b` into `db`. A backup stored at a destination is loaded by the database's own server, which uses its file
   * when it has one and else downloads and opens the object (any server, one that never held the database included).
   */
  private async load(b: BackupRecord, db: DatabaseRecord): Promise<void> {
    const offsite = b.remote ? await this.storedOffsite(b) : undefined;
    if (b.path === null && !offsite) throw new AppError('invalid_state', 'The backup has no file on its server and its destination was removed: it cannot be restored');
    const target = await this.target(offsite ? db.nodeId : (b.nodeId ?? db.nodeId));
    if (!target) throw new AppError('invalid_state', offsite ? "The database's server is gone" : 'The server holding the backup is gone');
    await this.deps.agents.restoreBackup(target, {
      databaseId: db.id,
      sourceDatabaseId: b.databaseId,
      backupId: b.id,
      sha256: b.sha256 ?? '',
      ...this.credentials(db),
      ...(offsite ? { offsite } : {}),
    });
  }

  // ------------------------------------------------------------------------------------------------ backup.schedule

  /**
   * One pass of the nightly schedule: each database whose slot of the latest night has passed and that has no
   * scheduled backup for that night gets one (queued), or — stopped or failed at that time — a `failed` row that says
   * it was skipped and why. Databases busy with other work are looked at again on the next pass.
   */
  async schedule(): Promise<ScheduleReport> {
    const now = this.deps.clock();
    const sources = await this.deps.backups.schedulable();
    const slots = sources.map((s) => ({ s, slot: latestSlot(now, s.id, this.settings) }));
    const done = await this.deps.backups.scheduledNights([...new Set(slots.map((x) => x.slot.night))]);
    const report: ScheduleReport = { due: 0, queued: [], skipped: [] };
    for (const { s, slot } of slots) {
      if (done.has(`${s.id}|${slot.night}`)) continue;
      const skip = s.status === 'stopped' || s.status === 'failed' || s.desiredState === 'stopped';
      if (!skip && s.status !== 'running') continue;
      report.due++;
      const reason = skip
        ? `Skipped: the database was ${s.status === 'failed' ? 'failed' : 'stopped'} when its nightly backup was due (${slot.at.toISOString()}); a ${s.status === 'failed' ? 'failed' : 'stopped'} database is not dumped. Start it to have it backed up.`
        : null;
      const created = await this.deps.backups.create({
        ...newBackup(uuidv7(now.getTime()), s, 'scheduled', now, this.settings),
        night: slot.night,
        ...(reason ? { status: 'failed' as const, error: reason } : {}),
      });
      if (created === 'exists') continue;
      if (reason) {
        report.skipped.push({ databaseId: s.id, reason });
        continue;
      }
      await this.deps.jobs.enqueue(BACKUP_RUN_JOB, { backupId: created.id }, { jobId: created.id });
      report.queued.push(created.id);
    }
    if (report.due) this.deps.logger.info({ queued: report.queued.length, skipped: report.skipped.length }, 'nightly backups scheduled');
    return report;
  }

  // ------------------------------------------------------------------------------------------------ backup.prune

  /**
   * Expired and deleted backups: the object removed from its destination, the file on its server, then the row (a
   * destination or server that does not answer: later). Then the local copies beyond the newest `localCopies` of
   * each database whose backups are stored off the server.
   */
  async prune(limit = 500): Promise<{ removed: number; waiting: number; localCopiesRemoved: number }> {
    const rows = await this.deps.backups.expired(this.deps.clock(), limit);
    let removed = 0;
    let waiting = 0;
    for (const b of rows) {
      if (b.remote?.destinationId && this.deps.offsite) {
        const destination = await this.deps.offsite.destinations.get(b.remote.destinationId);
        try {
          if (destination) await this.deps.offsite.storage.remove(this.reach(destination), b.remote.key);
        } catch (e) {
          waiting++;
          this.deps.logger.warn({ backupId: b.id, destinationId: b.remote.destinationId, err: reasonOf(e) }, 'expired backup not removed from its destination yet');
          continue;
        }
      }
      const target = await this.target(b.nodeId);
      if (target && b.path !== null) {
        try {
          await this.deps.agents.deleteBackup(target, { databaseId: b.databaseId, backupId: b.id });
        } catch (e) {
          waiting++;
          this.deps.logger.warn({ backupId: b.id, err: reasonOf(e) }, 'expired backup not removed yet');
          continue;
        }
      }
      await this.deps.backups.remove(b.id);
      removed++;
    }
    const localCopiesRemoved = await this.trimLocalCopies(limit);
    if (removed || localCopiesRemoved) this.deps.logger.info({ removed, waiting, localCopiesRemoved }, 'expired backups pruned');
    return { removed, waiting, localCopiesRemoved };
  }

  /** The local cache of off-server backups: copies beyond each database's newest `localCopies` removed from their server. */
  private async trimLocalCopies(limit: number): Promise<number> {
    let dropped = 0;
    for (const b of await this.deps.backups.localCopiesBeyond(this.settings.localCopies ?? 0, limit)) {
      const target = await this.target(b.nodeId);
      if (!target) continue;
      try {
        await this.deps.agents.deleteBackup(target, { databaseId: b.databaseId, backupId: b.id });
      } catch (e) {
        this.deps.logger.warn({ backupId: b.id, err: reasonOf(e) }, 'local copy of an off-server backup not removed yet');
        continue;
      }
      await this.deps.backups.dropLocalCopy(b.id);
      dropped++;
    }
    return dropped;
  }

  // ------------------------------------------------------------------------------------------------ internals

  /** The destination as the storage client reaches it (secret opened for this call only). */
  private reach(d: BackupDestinationRecord) {
    return { endpoint: d.endpoint, region: d.region, bucket: d.bucket, pathStyle: d.pathStyle, accessKeyId: d.accessKeyId, secretAccessKey: this.deps.secrets.open(d.secretKeySealed) };
  }

  private async offsiteOf(d: BackupDestinationRecord, b: BackupRecord, key: string): Promise<OffsiteTarget> {
    const keys = this.deps.offsite!.keys;
    return { ...this.reach(d), backupKey: await keys.keyOf(b.workspaceId), key };
  }

  /** Where a stored backup can be read (undefined: not stored off the server, or its destination was removed since). */
  private async storedOffsite(b: BackupRecord): Promise<OffsiteTarget | undefined> {
    if (!b.remote?.destinationId || !this.deps.offsite) return undefined;
    const d = await this.deps.offsite.destinations.get(b.remote.destinationId);
    return d ? { ...(await this.offsiteOf(d, b, b.remote.key)), sha256: b.remote.sha256 } : undefined;
  }

  private credentials(db: DatabaseRecord) {
    return { engine: db.engine, username: db.username, databaseName: db.databaseName, password: this.deps.secrets.open(db.passwordSealed) };
  }

  private async target(nodeId: string | null): Promise<AgentTarget | null> {
    if (!nodeId) return null;
    const node = await this.deps.backups.node(nodeId);
    return node ? { name: node.name, grpcAddress: node.grpcAddress } : null;
  }
}

/** Default `runLimitMs`. */
const DEFAULT_RUN_LIMIT_MS = 2 * 60 * 60_000;

/** The work's result, or a permanent failure with `message` once `ms` passed (the work itself is left to end on its own). */
async function withinLimit<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError('invalid_state', message)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}

const describeMs = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** `01:23:45 UTC`: the times of a night's tries (the window's hours are the server's, the row's times UTC). */
const clockTime = (d: Date) => `${d.toISOString().slice(11, 19)} UTC`;

const earlierText = (earlier: readonly string[]) => (earlier.length ? ` Earlier tries: ${earlier.map((t, i) => `#${i + 1} at ${t}`).join(' ')}` : '');

/** The reason a nightly backup ends failed with: the last try's, then what the earlier tries of the night failed with. */
function nightlyReason(b: BackupRecord, reason: string, earlier: readonly string[], s: BackupSettings): string {
  if (b.kind !== 'scheduled' || !b.night) return reason;
  const tries = earlier.length + 1;
  const total = (s.nightlyRetry ?? DEFAULT_NIGHTLY_RETRY).tries;
  const why = tries >= total ? `it was tried ${tries} times` : `no time was left in the night's window (until ${clockTime(windowEnd(b.night, s))}) for another try`;
  return `${reason} (Nightly backup: ${why}.${earlierText(earlier)})`;
}

/** An error's message as a user reads it. */
function reasonOf(e: unknown): string {
  if (e instanceof AppError) return e.message;
  return (e as Error)?.message ?? String(e);
}
