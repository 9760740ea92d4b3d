import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { BackupService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';
import { contentDisposition } from './files.routes';

/** Database backups (issue 13): thin handlers over BackupService; the download is streamed with its checksum. */
export function backupRoutes(s: { backups: BackupService }): HandlerTable {
  return {
    listBackups: ({ access, params, query }) => s.backups.list(access, params.databaseId, query),
    createBackup: ({ access, params }) => s.backups.create(access, params.databaseId),
    getBackup: ({ access, params }) => s.backups.get(access, params.databaseId, params.backupId),
    deleteBackup: async ({ access, params }) => {
      await s.backups.remove(access, params.databaseId, params.backupId);
      return { ok: true };
    },
    downloadBackup: async ({ access, params, res }) => {
      const file = await s.backups.download(access, params.databaseId, params.backupId);
      res.status(200);
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', String(file.sizeBytes));
      res.setHeader('Content-Disposition', contentDisposition(file.name));
      res.setHeader('X-Checksum-Sha256', file.sha256);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'no-store');
      // A failure after the headers (agent gone, file cut short) cuts the connection: never a short file taken for whole.
      await pipeline(file.stream as Readable, res);
    },
    restoreBackup: ({ access, params, body }) => s.backups.restore(access, params.databaseId, params.backupId, body.target),
  };
}
