import { pipeline } from 'node:stream/promises';
import type { FilesService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

/** The project-files API (spec 4.4): thin handlers over FilesService; upload and download are streamed. */
export function fileRoutes(s: { files: FilesService }): HandlerTable {
  return {
    listFiles: ({ access, params, query }) => s.files.list(access, params.appId, query.path),

    downloadFile: async ({ access, params, query, res }) => {
      const file = await s.files.download(access, params.appId, query.path);
      res.status(200);
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', String(file.size));
      res.setHeader('Content-Disposition', contentDisposition(file.name));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'no-store');
      // Backpressure both ways: the agent is read only as fast as the client takes the bytes. A failure after the
      // headers (agent gone, file shrank) cuts the connection, so the client never takes a short file for whole.
      await pipeline(file.stream, res);
    },

    uploadFile: ({ access, params, query, req }) => {
      const length = req.headers['content-length'];
      // destroyOnReturn false: when the upload fails early the request stays open for the error answer.
      const body = req.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;
      return s.files.upload(access, params.appId, query.path, body, length !== undefined ? Number(length) : undefined);
    },

    renameFile: ({ access, params, body }) => s.files.rename(access, params.appId, body),

    deleteFile: ({ access, params, query }) => s.files.delete(access, params.appId, query.path, query.recursive === 'true'),
  };
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
