import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Logger } from '@slipway/core';
import type { ImportChunk, MovesHandlers } from '@slipway/proto';
import type { AppsRuntime } from '../apps/apps.runtime';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { DatabasesRuntime } from '../databases/databases.runtime';
import { clientStream, serve, serverStream, unary, type Send } from '../rpc/handlers';
import { openUpload, receiveInto, type UploadPart } from '../rpc/upload';
import type { DiskGuard } from '../storage/disk-guard';
import { tarFolder, untarInto } from './tar';

type Header = NonNullable<ImportChunk['header']>;

const ID = /^[A-Za-z0-9_-]{1,64}$/;
function databaseIdOf(id: string | undefined): string {
  if (!id || !ID.test(id)) throw new AppError('validation_failed', 'database_id must be 1-64 letters, digits, - or _');
  return id;
}

/**
 * The `slipway.agent.v1.Moves` service (moves.proto, issue 32): a workspace's images and project folders out of this
 * server, and into it. Imports are received into a file under `<dataDir>/moves/` first and used only once their
 * commit arrived with the right byte count, so a transfer cut halfway loads nothing.
 */
export function movesHandlers(deps: { docker: DockerRuntime; apps: AppsRuntime; databases: DatabasesRuntime; disk: DiskGuard; dataDir: string; logger: Logger }): MovesHandlers {
  const spool = path.join(deps.dataDir, 'moves');
  /** A database's backup files (the Backups service's layout: `backups/<databaseId>/`). */
  const backupsOf = (databaseId: string) => path.join(deps.dataDir, 'backups', databaseIdOf(databaseId));
  const exists = (p: string) => stat(p).then(() => true, () => false);
  /** Receives an import into a spool file, runs `use` on it, removes it. */
  const received = async <T>(parts: AsyncIterable<UploadPart>, what: string, use: (file: string, size: number) => Promise<T>): Promise<T> => {
    await deps.disk.assertRoom(what);
    await mkdir(spool, { recursive: true, mode: 0o700 });
    const file = path.join(spool, `${randomUUID()}.tar`);
    try {
      const handle = await open(file, 'wx', 0o600);
      let size: number;
      try {
        size = await receiveInto(handle, parts, { maxBytes: Number.MAX_SAFE_INTEGER, tooLarge: `${what} is too large` });
      } finally {
        await handle.close();
      }
      return await use(file, size);
    } finally {
      await rm(file, { force: true });
    }
  };
  const sendAll = async (body: Iterable<Buffer> | AsyncIterable<Buffer>, send: Send<{ data?: Buffer; end?: { size: string } }>, signal: AbortSignal) => {
    let size = 0;
    for await (const data of body) {
      if (signal.aborted) return;
      size += data.length;
      await send({ data });
    }
    await send({ end: { size: String(size) } });
  };
  return serve<MovesHandlers>(deps.logger, {
    ExportImages: serverStream(async (req, send, signal) => {
      // A tag pruned since the control plane listed it is left out: the current one's absence shows when the target starts it.
      const present: string[] = [];
      for (const ref of req.imageRefs) if (await deps.docker.imageId(ref)) present.push(ref);
      if (present.length === 0) return sendAll([], send, signal);
      const tar = await deps.docker.saveImages(present);
      try {
        await sendAll(tar as AsyncIterable<Buffer>, send, signal);
      } finally {
        tar.destroy();
      }
    }),

    ImportImages: clientStream(async (messages) => {
      const { parts } = await openUpload<Header>(messages, 'an image import');
      return received(parts, 'An image import', async (file, size) => {
        const imageRefs = size > 0 ? await deps.docker.loadImages(createReadStream(file)) : [];
        deps.logger.info({ images: imageRefs, bytes: size }, 'images imported (workspace move)');
        return { imageRefs, size: String(size) };
      });
    }),

    ExportFolder: serverStream(async (req, send, signal) => {
      let body: AsyncIterable<Buffer> | null;
      if (req.folder === 'DATABASE_DATA') body = await deps.databases.exportData(databaseIdOf(req.databaseId));
      else if (req.folder === 'DATABASE_BACKUPS') {
        // Backup files are written once and renamed into place: partial ones (a dump under way) are left out.
        const dir = backupsOf(req.databaseId);
        body = (await exists(dir)) ? tarFolder(dir, { changedOk: false, exclude: ['.*.partial'] }) : null;
      } else body = await deps.apps.exportFolder(req.appId);
      await sendAll(body ?? [], send, signal);
    }),

    ImportFolder: clientStream(async (messages) => {
      const { header, parts } = await openUpload<Header>(messages, 'a folder import');
      if (header.folder === 'DATABASE_DATA') {
        const databaseId = databaseIdOf(header.databaseId);
        return received(parts, "A database's data import", async (file, size) => {
          if (size > 0) await deps.databases.importData(databaseId, file);
          return { size: String(size) };
        });
      }
      if (header.folder === 'DATABASE_BACKUPS') {
        const dir = backupsOf(header.databaseId);
        return received(parts, "A database's backups import", async (file, size) => {
          if (size > 0) {
            await mkdir(dir, { recursive: true, mode: 0o700 });
            await untarInto(file, dir);
          }
          return { size: String(size) };
        });
      }
      if (!header.appId) throw new AppError('validation_failed', 'A project folder import names its app');
      return received(parts, 'A project folder import', async (file, size) => {
        if (size > 0) await deps.apps.importFolder(header.appId, header.diskMb || 512, header.seededImageRef, file);
        return { size: String(size) };
      });
    }),

    RemoveBackupFolders: unary(async (req) => {
      let removed = 0;
      for (const id of req.databaseIds) {
        const dir = backupsOf(id);
        if (!(await exists(dir))) continue;
        await rm(dir, { recursive: true, force: true });
        removed++;
      }
      if (removed) deps.logger.info({ databases: req.databaseIds, removed }, 'backup folders removed (workspace moved away)');
      return { removed };
    }),
  });
}
