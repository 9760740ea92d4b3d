import { MAX_LISTING_ENTRIES, parseFilePath, type Logger } from '@slipway/core';
import type { FilesHandlers, WriteFileChunk } from '@slipway/proto';
import { clientStream, serve, serverStream, unary } from '../rpc/handlers';
import { openUpload } from '../rpc/upload';
import type { DiskGuard } from '../storage/disk-guard';
import type { ProjectFiles } from './files.service';

/** The `slipway.agent.v1.Files` service over the project folders (files.service.ts). */
export function filesHandlers(deps: { files: ProjectFiles; disk: DiskGuard; logger: Logger }): FilesHandlers {
  const { files } = deps;
  return serve<FilesHandlers>(deps.logger, {
    ListFiles: unary(async (req) => {
      const segments = parseFilePath(req.path, { allowRoot: true });
      const limit = req.limit > 0 ? Math.min(req.limit, MAX_LISTING_ENTRIES) : MAX_LISTING_ENTRIES;
      const { entries, truncated } = await files.list(req.appId, segments, limit);
      return { path: segments.join('/'), entries: entries.map((e) => ({ ...e, size: String(e.size) })), truncated };
    }),

    ReadFile: serverStream(async (req, send, signal) => {
      const opened = await files.read(req.appId, parseFilePath(req.path, { allowRoot: false }));
      try {
        await send({ info: { size: String(opened.size), name: opened.name } });
        for await (const data of opened.stream as AsyncIterable<Buffer>) {
          if (signal.aborted) return;
          await send({ data });
        }
      } finally {
        opened.stream.destroy();
      }
    }),

    // A cancelled call (the HTTP upload aborted) ends the messages without a commit: the write is dropped.
    WriteFile: clientStream(async (messages) => {
      const { header, parts } = await openUpload<NonNullable<WriteFileChunk['header']>>(messages, 'a file write');
      await deps.disk.assertRoom('an upload');
      const res = await files.write(header.appId, parseFilePath(header.path, { allowRoot: false }), parts);
      return { size: String(res.size) };
    }),

    RenameFile: unary(async (req) => {
      await files.rename(req.appId, parseFilePath(req.from, { allowRoot: false }), parseFilePath(req.to, { allowRoot: false }));
      return { ok: true };
    }),

    DeleteFile: unary(async (req) => {
      await files.delete(req.appId, parseFilePath(req.path, { allowRoot: false }), req.recursive);
      return { ok: true };
    }),
  });
}
