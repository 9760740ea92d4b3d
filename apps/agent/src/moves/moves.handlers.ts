import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Logger } from '@slipway/core';
import type { ImportChunk, MovesHandlers } from '@slipway/proto';
import type { AppsRuntime } from '../apps/apps.runtime';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { DatabasesRuntime } from '../databases/databases.runtime';
import { clientStream, serve, serverStream, unary, type Send } from '../rpc/handlers';
import { openUpload, receiveInto, type UploadPart } from '../rpc/upload';
import type { DiskGuard } from '../storage/disk-guard';
import { applyDelta, checkBlockBytes, deltaOf, signatureOf, type FileMemo } from './block-delta';
import { tarFolder, untarInto, untarStream } from './tar';
import { committedData, unzstdOf, zstdOf } from './zstd';

type Header = NonNullable<ImportChunk['header']>;

const ID = /^[A-Za-z0-9_-]{1,64}$/;
function databaseIdOf(id: string | undefined): string {
  if (!id || !ID.test(id)) throw new AppError('validation_failed', 'database_id must be 1-64 letters, digits, - or _');
  return id;
}

const STOPPED_FOR_EXPORT = 'The database runs: it is stopped before its data is copied';
const RUNNING_HERE = 'The database already runs on this server: its data is not replaced';
/** Signature chunks sent per message. */
const SIGNATURE_CHUNK_BYTES = 1024 * 1024;
/** Export messages are at least this big (the control plane relays them as they come). */
const SEND_MESSAGE_BYTES = 256 * 1024;

function checkBlockBytesOf(n: number): number {
  try {
    return checkBlockBytes(n);
  } catch (e) {
    throw new AppError('validation_failed', (e as Error).message);
  }
}

/**
 * The `slipway.agent.v1.Moves` service (moves.proto, issue 32): a workspace's images and project folders out of this
 * server, and into it. Imports are received into a file under `<dataDir>/moves/` first and used only once their
 * commit arrived with the right byte count, so a transfer cut halfway loads nothing.
 */
export function movesHandlers(deps: { docker: DockerRuntime; apps: AppsRuntime; databases: DatabasesRuntime; disk: DiskGuard; dataDir: string; logger: Logger }): MovesHandlers {
  const spool = path.join(deps.dataDir, 'moves');
  /** Per database, what this server's passes of a move read of its data folder (block-delta.ts FileMemo). */
  const memos = new Map<string, FileMemo>();
  /** Per database and block size, what this server's signatures of its copy read (the 8 most recent). */
  const signatureMemos = new Map<string, FileMemo>();
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
  /** Writes `data` into a spool file, runs `use` on it with the bytes written, removes it. */
  const spooled = async <T>(data: AsyncIterable<Buffer>, what: string, use: (file: string, size: number) => Promise<T>): Promise<T> => {
    await deps.disk.assertRoom(what);
    await mkdir(spool, { recursive: true, mode: 0o700 });
    const file = path.join(spool, `${randomUUID()}.tar`);
    try {
      let size = 0;
      const counted = (async function* () {
        for await (const chunk of data) {
          size += chunk.length;
          yield chunk;
        }
      })();
      await pipeline(Readable.from(counted), createWriteStream(file, { flags: 'wx', mode: 0o600 }));
      return await use(file, size);
    } finally {
      await rm(file, { force: true });
    }
  };
  /**
   * The body in messages of at least SEND_MESSAGE_BYTES (tar's pipe gives 64 KiB reads: four times fewer messages to
   * frame, encrypt and relay per byte), then the `end` with the bytes sent.
   */
  const sendAll = async (body: Iterable<Buffer> | AsyncIterable<Buffer>, send: Send<{ data?: Buffer; end?: { size: string } }>, signal: AbortSignal) => {
    let size = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const data = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await send({ data });
    };
    for await (const data of body) {
      if (signal.aborted) return;
      size += data.length;
      pending.push(data);
      pendingBytes += data.length;
      if (pendingBytes >= SEND_MESSAGE_BYTES) await flush();
    }
    if (signal.aborted) return;
    if (pendingBytes > 0) await flush();
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
      if (req.folder === 'DATABASE_DATA') {
        // `live`: a pre-copy while the engine runs (decision 0037); otherwise the final copy of a stopped engine.
        body = await deps.databases.withDataFolder(databaseIdOf(req.databaseId), { whileRunning: req.live, refusal: STOPPED_FOR_EXPORT }, async (data) => {
          if (!(await exists(data))) return null;
          const tar = tarFolder(data, { changedOk: false, live: req.live });
          return req.zstd ? zstdOf(tar) : tar;
        });
      }
      else if (req.folder === 'DATABASE_BACKUPS') {
        // Backup files are written once and renamed into place: partial ones (a dump under way) are left out. Dumps are
        // written uncompressed (dumpers.ts), so they travel compressed like a database's data when asked.
        const dir = backupsOf(req.databaseId);
        const tar = (await exists(dir)) ? tarFolder(dir, { changedOk: false, exclude: ['.*.partial'] }) : null;
        body = tar && req.zstd ? zstdOf(tar) : tar;
      } else body = await deps.apps.exportFolder(req.appId);
      await sendAll(body ?? [], send, signal);
    }),

    ImportFolder: clientStream(async (messages) => {
      const { header, parts } = await openUpload<Header>(messages, 'a folder import');
      if (header.folder === 'DATABASE_DATA') {
        // Unpacked as it arrives into `data.incoming` (the bytes written once, not spooled then unpacked), which replaces
        // the data folder only once the commit arrived: a copy cut halfway leaves the earlier folder as it was.
        await deps.disk.assertRoom("A database's data import");
        return deps.databases.withDataFolder(databaseIdOf(header.databaseId), { whileRunning: false, refusal: RUNNING_HERE }, async (data) => {
          const incoming = `${data}.incoming`;
          await rm(incoming, { recursive: true, force: true });
          await mkdir(incoming, { recursive: true, mode: 0o700 });
          try {
            const upload = committedData(parts);
            const unpacked = await untarStream(unzstdOf(upload.data), incoming);
            const size = upload.done();
            if (unpacked > 0) {
              await rm(data, { recursive: true, force: true });
              await rename(incoming, data);
              deps.logger.info({ databaseId: header.databaseId, bytes: size, unpacked }, 'database data imported (workspace move)');
            }
            return { size: String(size), unpackedSize: String(unpacked) };
          } finally {
            await rm(incoming, { recursive: true, force: true });
          }
        });
      }
      if (header.folder === 'DATABASE_DATA_DELTA') {
        // Applied as it arrives (its bytes written once). A delta cut halfway leaves this copy half patched: the move
        // that sent it fails and removes the copy (a copy is started only after a complete final delta).
        const databaseId = databaseIdOf(header.databaseId);
        await deps.disk.assertRoom("A database's data delta");
        return deps.databases.withDataFolder(databaseId, { whileRunning: false, refusal: RUNNING_HERE }, async (data) => {
          const upload = committedData(parts);
          const applied = await applyDelta(data, unzstdOf(upload.data));
          const size = upload.done();
          deps.logger.info({ databaseId, bytes: size, ...applied }, 'database data delta applied (workspace move)');
          return { size: String(size) };
        });
      }
      if (header.folder === 'DATABASE_BACKUPS') {
        const dir = backupsOf(header.databaseId);
        // Spooled decompressed (a compressed stream told by zstd's magic number), unpacked only once the commit arrived.
        const upload = committedData(parts);
        return spooled(unzstdOf(upload.data), "A database's backups import", async (file, unpacked) => {
          const size = upload.done();
          if (unpacked > 0) {
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

    DataSignature: serverStream(async (req, send, signal) => {
      const blockBytes = checkBlockBytesOf(req.blockSize);
      const databaseId = databaseIdOf(req.databaseId);
      // The passes of a move describe the same copy again and again: files unchanged since are not read again.
      const key = `${databaseId}/${blockBytes}`;
      const memo = signatureMemos.get(key) ?? (new Map() as FileMemo);
      signatureMemos.delete(key);
      signatureMemos.set(key, memo);
      for (const old of [...signatureMemos.keys()].slice(0, Math.max(0, signatureMemos.size - 8))) signatureMemos.delete(old);
      const signature = await deps.databases.withDataFolder(databaseId, { whileRunning: false, refusal: RUNNING_HERE }, (data) => signatureOf(data, blockBytes, memo));
      const chunks: Buffer[] = [];
      for (let at = 0; at < signature.length; at += SIGNATURE_CHUNK_BYTES) chunks.push(signature.subarray(at, at + SIGNATURE_CHUNK_BYTES));
      await sendAll(chunks, send, signal);
    }),

    ExportDataDelta: serverStream(async (req, send, signal) => {
      const databaseId = databaseIdOf(req.databaseId);
      // A pass while the engine runs first has it write its memory to disk (PostgreSQL: a checkpoint), so that this
      // pass carries it and the stop that follows has little left to write.
      if (req.live) await deps.databases.flushData(databaseId).catch((err: unknown) => deps.logger.warn({ err, databaseId }, 'could not flush the engine before a move pass'));
      // What the passes read is remembered (in memory: an agent restarted reads everything again), so the final copy
      // reads only the files changed since the last pass; it forgets it.
      const memo = memos.get(databaseId) ?? (new Map() as FileMemo);
      memos.set(databaseId, memo);
      const body = await deps.databases.withDataFolder(databaseId, { whileRunning: req.live, refusal: STOPPED_FOR_EXPORT }, async (data) => {
        if (!(await exists(data))) throw new AppError('not_found', `No data folder of the database ${databaseId} on this server`);
        const delta = deltaOf(data, req.signature, undefined, memo);
        return req.zstd ? zstdOf(delta) : delta;
      });
      try {
        await sendAll(body, send, signal);
      } finally {
        if (!req.live) memos.delete(databaseId);
      }
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
