import type { Logger } from '@slipway/core';
import type { BackupsHandlers } from '@slipway/proto';
import { serve, serverStream, unary } from '../../rpc/handlers';
import type { BackupsRuntime } from './backups.runtime';

/** The `slipway.agent.v1.Backups` service (backups.proto) over BackupsRuntime. */
export function backupsHandlers(deps: { backups: BackupsRuntime; logger: Logger }): BackupsHandlers {
  const { backups } = deps;
  return serve<BackupsHandlers>(deps.logger, {
    CreateBackup: unary(async (req) => {
      const f = await backups.create({ ...req });
      return { databaseId: f.databaseId, backupId: f.backupId, path: f.path, sizeBytes: String(f.sizeBytes), sha256: f.sha256, format: f.format, replayed: f.replayed };
    }),
    VerifyBackup: unary((req) => backups.verify({ ...req })),
    RestoreBackup: unary(async (req) => {
      const r = await backups.restore({ ...req });
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
  });
}
