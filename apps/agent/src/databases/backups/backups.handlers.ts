import { AppError, type Logger } from '@slipway/core';
import { probeTarget } from '@slipway/offsite';
import type { BackupsHandlers } from '@slipway/proto';
import { serve, serverStream, unary } from '../../rpc/handlers';
import type { BackupsRuntime, OffsiteCall } from './backups.runtime';

/** The request's destination, for this call only (never stored, never logged). */
function offsiteOf(
  o: { endpoint: string; region: string; bucket: string; pathStyle: boolean; accessKeyId: string; secretAccessKey: string; backupKey: Buffer; key: string; keepLocal: boolean; sha256: string; sizeHintBytes: string } | null,
): OffsiteCall | undefined {
  if (!o) return undefined;
  if (o.backupKey.length !== 32) throw new AppError('validation_failed', 'offsite.backup_key must be 32 bytes');
  if (!o.key || !o.bucket || !o.endpoint) throw new AppError('validation_failed', 'offsite needs endpoint, bucket and key');
  const target = { endpoint: o.endpoint, region: o.region, bucket: o.bucket, prefix: '', pathStyle: o.pathStyle, accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey };
  return { target, backupKey: o.backupKey, key: o.key, keepLocal: o.keepLocal, sha256: o.sha256, sizeHintBytes: Number(o.sizeHintBytes) || 0 };
}

/** The `slipway.agent.v1.Backups` service (backups.proto) over BackupsRuntime. */
export function backupsHandlers(deps: { backups: BackupsRuntime; logger: Logger }): BackupsHandlers {
  const { backups } = deps;
  return serve<BackupsHandlers>(deps.logger, {
    CreateBackup: unary(async (req) => {
      const f = await backups.create({ ...req, offsite: offsiteOf(req.offsite) });
      return {
        databaseId: f.databaseId,
        backupId: f.backupId,
        path: f.path,
        sizeBytes: String(f.sizeBytes),
        sha256: f.sha256,
        format: f.format,
        replayed: f.replayed,
        remoteKey: f.remote?.key ?? '',
        remoteSizeBytes: String(f.remote?.sizeBytes ?? 0),
        remoteSha256: f.remote?.sha256 ?? '',
      };
    }),
    VerifyBackup: unary((req) => backups.verify({ ...req, offsite: offsiteOf(req.offsite) })),
    RestoreBackup: unary(async (req) => {
      const r = await backups.restore({ ...req, offsite: offsiteOf(req.offsite) });
      return { restoredBytes: String(r.restoredBytes) };
    }),
    ReadBackup: serverStream(async (req, send, signal) => {
      const { file, stream } = await backups.openRead(req.databaseId, req.backupId);
      try {
        await send({ info: { sizeBytes: String(file.sizeBytes), sha256: file.sha256, name: `${file.backupId}${file.path.slice(file.path.lastIndexOf('.'))}` } });
        for await (const data of stream as AsyncIterable<Buffer>) {
          if (signal.aborted) return;
          await send({ data });
        }
      } finally {
        stream.destroy();
      }
    }),
    DeleteBackup: unary((req) => backups.remove(req.databaseId, req.backupId)),
    // Issue 33: the destination test call from this server (where the backups upload from); nothing kept, nothing logged.
    ProbeDestination: unary(async (req) => {
      const d = req.destination;
      if (!d?.endpoint || !d.bucket) throw new AppError('validation_failed', 'destination needs endpoint and bucket');
      if (req.prefix && !req.prefix.endsWith('/')) throw new AppError('validation_failed', 'prefix is empty or ends in /');
      const r = await probeTarget({ endpoint: d.endpoint, region: d.region, bucket: d.bucket, prefix: req.prefix, pathStyle: d.pathStyle, accessKeyId: d.accessKeyId, secretAccessKey: d.secretAccessKey });
      return { ok: r.ok, stage: r.stage ?? '', reason: r.reason ?? '', message: r.message, elapsedMs: r.elapsedMs };
    }),
  });
}
