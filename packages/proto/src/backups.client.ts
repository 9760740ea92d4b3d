import { Readable } from 'node:stream';
import type { AgentTarget, OffsiteTarget, OpenedDestination, ProbeAnswer } from '@slipway/core';
import type { Offsite } from './generated/slipway/agent/v1/Offsite';
import type { AgentPool } from './client';
import type { BackupFile__Output } from './generated/slipway/agent/v1/BackupFile';
import type { BackupsClient } from './generated/slipway/agent/v1/Backups';
import type { DeleteBackupResponse__Output } from './generated/slipway/agent/v1/DeleteBackupResponse';
import type { ProbeDestinationResponse__Output } from './generated/slipway/agent/v1/ProbeDestinationResponse';
import type { RestoreBackupResponse__Output } from './generated/slipway/agent/v1/RestoreBackupResponse';
import type { VerifyBackupResponse__Output } from './generated/slipway/agent/v1/VerifyBackupResponse';
import { loadBackupsProto } from './load';
import { streamDownload } from './stream-download';
import { unary } from './unary';

export type { BackupsClient };

/** A dump or a load of a big database takes long: the job's own timeout is the real bound. */
const LONG_DEADLINE_MS = 6 * 3600_000;
const SHORT_DEADLINE_MS = 60_000;

interface Credentials {
  engine: string;
  username: string;
  databaseName: string;
  password: string;
}

/** The destination of one call, as the proto carries it. */
const offsite = (o: OffsiteTarget | undefined): { offsite?: Offsite } =>
  o
    ? {
        offsite: {
          endpoint: o.endpoint,
          region: o.region,
          bucket: o.bucket,
          pathStyle: o.pathStyle,
          accessKeyId: o.accessKeyId,
          secretAccessKey: o.secretAccessKey,
          backupKey: o.backupKey,
          key: o.key,
          keepLocal: o.keepLocal ?? false,
          sizeHintBytes: String(o.sizeHintBytes ?? 0),
          sha256: o.sha256 ?? '',
        },
      }
    : {};

/**
 * The `slipway.agent.v1.Backups` service of each server (backups.proto), over the pool's connection to it; implements
 * the BackupAgent port of @slipway/core. Agent refusals keep their codes (invalid_state, database_busy, not_found…);
 * an agent that cannot be reached is `node_unavailable` (transient).
 */
export class BackupsPool {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): BackupsClient {
    const { Backups } = loadBackupsProto().slipway.agent.v1;
    return this.agents.connection(target).service('backups', (address, credentials, options) => new Backups(address, credentials, options));
  }

  async createBackup(
    target: AgentTarget,
    input: Credentials & { databaseId: string; backupId: string; offsite?: OffsiteTarget },
  ): Promise<{ path: string; sizeBytes: number; sha256: string; format: string; replayed: boolean; remote: { key: string; sizeBytes: number; sha256: string } | null }> {
    const r = await unary<BackupFile__Output>(target, (cb, o) => this.client(target).createBackup({ ...input, ...offsite(input.offsite) }, o, cb), LONG_DEADLINE_MS);
    const remote = r.remoteKey ? { key: r.remoteKey, sizeBytes: Number(r.remoteSizeBytes), sha256: r.remoteSha256 } : null;
    return { path: r.path, sizeBytes: Number(r.sizeBytes), sha256: r.sha256, format: r.format, replayed: r.replayed, remote };
  }

  async verifyBackup(target: AgentTarget, input: Credentials & { databaseId: string; backupId: string; load?: boolean; offsite?: OffsiteTarget }): Promise<{ ok: boolean; method: string; message: string }> {
    return unary<VerifyBackupResponse__Output>(target, (cb, o) => this.client(target).verifyBackup({ ...input, ...offsite(input.offsite) }, o, cb), LONG_DEADLINE_MS);
  }

  async restoreBackup(target: AgentTarget, input: Credentials & { databaseId: string; sourceDatabaseId: string; backupId: string; sha256: string; offsite?: OffsiteTarget }): Promise<{ restoredBytes: number }> {
    const r = await unary<RestoreBackupResponse__Output>(target, (cb, o) => this.client(target).restoreBackup({ ...input, ...offsite(input.offsite) }, o, cb), LONG_DEADLINE_MS);
    return { restoredBytes: Number(r.restoredBytes) };
  }

  /**
   * Issue 33: the destination test call run by the agent of `target` (where its backups upload from). The answer is
   * the probe's (a failure of the storage is `ok: false` with a sentence); an agent that cannot run it is an error.
   */
  async probeDestination(target: AgentTarget, d: OpenedDestination): Promise<ProbeAnswer> {
    const r = await unary<ProbeDestinationResponse__Output>(
      target,
      (cb, o) =>
        this.client(target).probeDestination(
          { destination: { endpoint: d.endpoint, region: d.region, bucket: d.bucket, pathStyle: d.pathStyle, accessKeyId: d.accessKeyId, secretAccessKey: d.secretAccessKey }, prefix: d.prefix },
          o,
          cb,
        ),
      SHORT_DEADLINE_MS,
    );
    return {
      ok: r.ok,
      stage: (r.stage || null) as ProbeAnswer['stage'],
      reason: (r.reason || null) as ProbeAnswer['reason'],
      message: r.message,
      elapsedMs: r.elapsedMs,
    };
  }

  async deleteBackup(target: AgentTarget, input: { databaseId: string; backupId: string }): Promise<{ removed: boolean }> {
    return unary<DeleteBackupResponse__Output>(target, (cb, o) => this.client(target).deleteBackup(input, o, cb), SHORT_DEADLINE_MS);
  }

  /** The file's bytes as a stream, after its header (size, checksum) arrived; a stream cut short fails. */
  async readBackup(target: AgentTarget, input: { databaseId: string; backupId: string }): Promise<{ name: string; sizeBytes: number; sha256: string; stream: Readable }> {
    const { info, size, stream } = await streamDownload(this.client(target).readBackup(input), target, (i) => Number(i.sizeBytes), {
      header: 'backup',
      short: 'The backup file was cut short while it was read',
    });
    return { name: info.name, sizeBytes: size, sha256: info.sha256, stream };
  }
}
