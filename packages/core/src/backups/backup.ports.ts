import type { AgentTarget } from '../ports/agents';
import type { DatabaseEngine } from '../databases/engines';
import type { BackupDestinationRecord, OpenedDestination, ProbeAnswer } from '../backup-destinations/destination.ports';

export type BackupKind = 'scheduled' | 'manual' | 'pre_restore';
export type BackupStatus = 'pending' | 'running' | 'completed' | 'failed';

/** A backup row as services see it. */
export interface BackupRecord {
  id: string;
  workspaceId: string;
  databaseId: string;
  nodeId: string | null;
  sourceName: string;
  engine: DatabaseEngine;
  version: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
  kind: BackupKind;
  status: BackupStatus;
  error: string | null;
  sizeBytes: number | null;
  sha256: string | null;
  path: string | null;
  format: string | null;
  night: string | null;
  verifyStatus: 'passed' | 'failed' | null;
  verifyMessage: string | null;
  verifiedAt: Date | null;
  startedAt: Date | null;
  completedAt: Date | null;
  expiresAt: Date;
  deletedAt: Date | null;
  createdAt: Date;
  /**
   * Issue 33: where the backup is stored off the server (null: nowhere but the server's file). `destinationId` is
   * null once the destination was removed (the object stays in its bucket). `path` is null when no local copy was
   * kept (the local copies are a cache: `BackupSettings.localCopies`).
   */
  remote: StoredObject | null;
}

/** A backup's object at its destination: key, size and SHA-256 of the sealed bytes (read back before completion). */
export interface StoredObject {
  destinationId: string | null;
  key: string;
  sizeBytes: number;
  sha256: string;
}

/** What a completed dump left: the plain dump's size and SHA-256, its file here (path null: none kept), its object there. */
export interface BackupOutcome {
  sizeBytes: number;
  sha256: string;
  path: string | null;
  format: string;
  remote: StoredObject | null;
}

export type NewBackup = Pick<
  BackupRecord,
  'id' | 'workspaceId' | 'databaseId' | 'nodeId' | 'sourceName' | 'engine' | 'version' | 'cpuMillis' | 'memoryMb' | 'diskMb' | 'kind' | 'expiresAt'
> & { night?: string | null; status?: BackupStatus; error?: string | null; createdAt: Date };

export type BackupScope = { workspaceId: string; databaseId: string };

/** Request side: every method takes the workspace. Deleted backups (deletedAt) are never returned. */
export interface BackupRepository {
  /** Newest first; `before` is the (createdAt, id) of the last row of the previous page. */
  list(scope: BackupScope, page: { before?: { createdAt: Date; id: string }; limit: number }): Promise<BackupRecord[]>;
  find(scope: BackupScope & { backupId: string }): Promise<BackupRecord | null>;
  /** The newest manual backup of the database that did not fail (the hourly limit counts it). */
  lastManual(scope: BackupScope): Promise<BackupRecord | null>;
  /** A backup of the database running, or pending its first try (one at a time); not one waiting to be tried again. */
  active(scope: BackupScope): Promise<BackupRecord | null>;
  create(b: NewBackup): Promise<BackupRecord>;
  /** Hidden at once; the prune job removes the file and the row. False: no such (live) backup. */
  markDeleted(scope: BackupScope & { backupId: string }, now: Date): Promise<boolean>;
  /**
   * The database's status moved from `running` to `restoring` (with a message) only while it is `running`: false when
   * it was not (busy or stopped).
   */
  beginRestore(scope: BackupScope, message: string): Promise<boolean>;
}

/** A database as the backup jobs need it (the job side reads the databases' own store for the password). */
export interface BackupSource {
  id: string;
  workspaceId: string;
  nodeId: string | null;
  name: string;
  engine: DatabaseEngine;
  version: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
  status: string;
  desiredState: string;
}

/** Job side, keyed by the backup id a job holds (deleted rows included). */
export interface BackupJobStore {
  get(backupId: string): Promise<BackupRecord | null>;
  create(b: NewBackup): Promise<BackupRecord | 'exists'>;
  /** pending → running (startedAt); false when it was not pending. */
  claim(backupId: string, now: Date): Promise<boolean>;
  /** running → pending again (a transient failure: the next try claims it). */
  release(backupId: string, error: string): Promise<void>;
  complete(backupId: string, file: BackupOutcome, now: Date): Promise<void>;
  /** pending|running → failed with the reason. */
  fail(backupId: string, error: string, now: Date): Promise<void>;
  setVerification(backupId: string, v: { status: 'passed' | 'failed'; message: string }, now: Date): Promise<void>;
  /** Databases of live workspaces that are not deleted (the scheduler's candidates). */
  schedulable(): Promise<BackupSource[]>;
  /** Scheduled backups of these nights already recorded, as `databaseId|night`. */
  scheduledNights(nights: string[]): Promise<Set<string>>;
  /** Backups whose retention ended or that were deleted, or whose workspace is deleted (at most `limit`). */
  expired(now: Date, limit: number): Promise<BackupRecord[]>;
  remove(backupId: string): Promise<void>;
  /** The database row's status and message, moved only from one of `from` (restore bookkeeping). */
  setDatabaseStatus(databaseId: string, from: readonly string[], status: string, message: string | null): Promise<boolean>;
  /** The node a backup's file is on. */
  node(nodeId: string): Promise<{ id: string; name: string; grpcAddress: string } | null>;
  /** For the operator: failed backups, failed checks and backups waiting to be tried again after a failure, newest first. */
  failures(limit: number): Promise<BackupRecord[]>;
  /** Completed backups stored off the server whose local copy is older than their database's newest `keep` (the cache's overflow). */
  localCopiesBeyond(keep: number, limit: number): Promise<BackupRecord[]>;
  /** The local copy is gone (removed from its server): `path` null. */
  dropLocalCopy(backupId: string): Promise<void>;
}

/** Where a database's backups go (issue 33), job side: its named destination, else the workspace's default. */
export interface BackupDestinationJobStore {
  forDatabase(databaseId: string): Promise<BackupDestinationRecord | null>;
  get(destinationId: string): Promise<BackupDestinationRecord | null>;
}

/** The destination and key of one agent call (the agent keeps neither, logs neither). */
export interface OffsiteTarget {
  endpoint: string;
  region: string;
  bucket: string;
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  backupKey: Buffer;
  /** CreateBackup: the key without its ending (the agent adds `.<ext>.sealed`); restore, verify: the whole key. */
  key: string;
  keepLocal?: boolean;
  /** CreateBackup: the most the dump is expected to be (the multipart upload's part size grows with it). */
  sizeHintBytes?: number;
  /** Restore, verify: the stored object's SHA-256. */
  sha256?: string;
}

/** The storage as the worker reaches it itself (retention): packages/offsite `removeStored`. */
export interface OffsiteStorage {
  remove(target: Omit<OffsiteTarget, 'backupKey' | 'key' | 'keepLocal' | 'sha256' | 'sizeHintBytes'>, key: string): Promise<void>;
}

interface EngineCredentials {
  engine: string;
  username: string;
  databaseName: string;
  password: string;
}

/**
 * The agents' `slipway.agent.v1.Backups` service (proto/slipway/agent/v1/backups.proto); packages/proto's
 * BackupsPool implements it. An unreachable agent is AppError('node_unavailable'); the agent's refusals keep their
 * codes (invalid_state with the reason, database_busy, not_found, engine_unavailable).
 */
export interface BackupAgent {
  /** `path` is '' when no local copy was kept; `remote` is set when `offsite` was given (read back before the answer). */
  createBackup(
    target: AgentTarget,
    input: EngineCredentials & { databaseId: string; backupId: string; offsite?: OffsiteTarget },
  ): Promise<{ path: string; sizeBytes: number; sha256: string; format: string; replayed: boolean; remote: { key: string; sizeBytes: number; sha256: string } | null }>;
  verifyBackup(target: AgentTarget, input: EngineCredentials & { databaseId: string; backupId: string; offsite?: OffsiteTarget }): Promise<{ ok: boolean; method: string; message: string }>;
  /** With `offsite`, a file not on the server is downloaded from the destination and opened first. */
  restoreBackup(target: AgentTarget, input: EngineCredentials & { databaseId: string; sourceDatabaseId: string; backupId: string; sha256: string; offsite?: OffsiteTarget }): Promise<{ restoredBytes: number }>;
  deleteBackup(target: AgentTarget, input: { databaseId: string; backupId: string }): Promise<{ removed: boolean }>;
  readBackup(target: AgentTarget, input: { databaseId: string; backupId: string }): Promise<{ name: string; sizeBytes: number; sha256: string; stream: NodeJS.ReadableStream }>;
  /** Issue 33: the destination test call run by this server's agent (ServerDestinationProbe). */
  probeDestination?(target: AgentTarget, destination: OpenedDestination): Promise<ProbeAnswer>;
}

/** Retention and schedule settings (config SLIPWAY_BACKUP_*). */
export interface BackupSettings {
  /** Window of server-local hours for the nightly backups: [startHour, endHour) (end may be past midnight). */
  window: { startHour: number; endHour: number };
  /** IANA time zone of "server-local" (default: the process's). */
  timeZone: string;
  retentionDays: Record<BackupKind, number>;
  /**
   * How long one dump may take before the backup ends `failed` (its agent call stalled: a paused or hung engine);
   * the database's lock is let go then, so the next backup is accepted. Default 2 hours.
   */
  runLimitMs?: number;
  /**
   * Issue 33: local copies kept of backups that went to a destination, per database (the newest N; 0: none, the dump
   * goes straight to the destination). Default 0.
   */
  localCopies?: number;
  /**
   * Issue 33: a nightly backup that fails (its destination unreachable, the dump cut…) is tried again while its
   * window lasts: `tries` in all, the second `firstDelayMs` after the first failure, each wait twice the one before.
   * Default 4 tries, 5 min (schedule.ts DEFAULT_NIGHTLY_RETRY).
   */
  nightlyRetry?: { tries: number; firstDelayMs: number };
}

let machineZone: string | undefined;
/**
 * The server's own time zone (IANA), asked of ICU the first time it is needed, not when a module loads: ICU's data
 * that the question touches cost every process of the platform ~8 MB of resident memory from its start (issue 34).
 */
export function machineTimeZone(): string {
  return (machineZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
}

export const DEFAULT_BACKUP_SETTINGS: BackupSettings = {
  window: { startHour: 1, endHour: 5 },
  get timeZone() {
    return machineTimeZone();
  },
  retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 },
};
