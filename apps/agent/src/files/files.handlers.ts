import type * as grpc from '@grpc/grpc-js';
import { AppError, MAX_LISTING_ENTRIES, parseFilePath, type Logger } from '@slipway/core';
import { CONTROL_PLANE_CLIENT_NAME } from '@slipway/pki';
import { toServiceError, type FilesHandlers, type WriteFileChunk } from '@slipway/proto';
import type { ProjectFiles, WriteMessage } from './files.service';

type AnyCall = { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } } };

/** Only the control plane's certificate may call (the same rule as the Agent service, handlers.ts). */
function authorize(call: AnyCall): void {
  const cn = call.getAuthContext().sslPeerCertificate?.subject?.CN;
  if (cn !== CONTROL_PLANE_CLIENT_NAME) throw new AppError('forbidden', 'Only the control plane may call this agent');
}

/** The `slipway.agent.v1.Files` service over the project folders (files.service.ts). */
export function filesHandlers(deps: { files: ProjectFiles; logger: Logger }): FilesHandlers {
  const { files, logger } = deps;
  // Unexpected failures are logged here and travel as a bare `internal`: no server path reaches the API.
  const wrap = (rpc: string, e: unknown): AppError => {
    if (e instanceof AppError) return e;
    logger.error({ err: e, rpc }, 'file operation failed');
    return new AppError('internal', 'The file operation failed on the server');
  };
  function unary<Req, Res>(rpc: string, fn: (req: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      Promise.resolve()
        .then(() => authorize(call))
        .then(() => fn(call.request))
        .then(
          (res) => callback(null, res),
          (e: unknown) => callback(toServiceError(wrap(rpc, e))),
        );
    };
  }

  return {
    ListFiles: unary('ListFiles', async (req: { appId: string; path: string; limit: number }) => {
      const segments = parseFilePath(req.path, { allowRoot: true });
      const limit = req.limit > 0 ? Math.min(req.limit, MAX_LISTING_ENTRIES) : MAX_LISTING_ENTRIES;
      const { entries, truncated } = await files.list(req.appId, segments, limit);
      return { path: segments.join('/'), entries: entries.map((e) => ({ ...e, size: String(e.size) })), truncated };
    }),

    ReadFile: (call) => {
      let cancelled = false;
      let stop: (() => void) | null = null;
      call.on('cancelled', () => {
        cancelled = true;
        stop?.();
      });
      (async () => {
        authorize(call);
        const opened = await files.read(call.request.appId, parseFilePath(call.request.path, { allowRoot: false }));
        stop = () => opened.stream.destroy();
        if (cancelled) return stop();
        call.write({ info: { size: String(opened.size), name: opened.name } });
        for await (const data of opened.stream as AsyncIterable<Buffer>) {
          if (cancelled) return;
          if (!call.write({ data })) await new Promise<void>((r) => (cancelled ? r() : call.once('drain', () => r())));
        }
        call.end();
      })().catch((e: unknown) => {
        if (!cancelled) call.emit('error', toServiceError(wrap('ReadFile', e)));
      });
    },

    WriteFile: (call, callback) => {
      // The client cancelling (the HTTP upload aborted) ends the message stream without a commit: the write is dropped.
      // Not Promise.race against one long-lived `aborted` promise: each race leaves a reaction on it that holds the
      // settled result (a data message) until the call ends, so every chunk of an upload stayed in memory.
      let aborted = false;
      let wake: (() => void) | null = null;
      call.on('cancelled', () => {
        aborted = true;
        wake?.();
      });
      const chunks = call[Symbol.asyncIterator]() as AsyncIterator<WriteFileChunk>;
      const next = (): Promise<IteratorResult<WriteFileChunk> | 'aborted'> =>
        aborted
          ? Promise.resolve('aborted')
          : new Promise((resolve, reject) => {
              wake = () => resolve('aborted');
              chunks.next().then(
                (m) => {
                  wake = null;
                  resolve(m);
                },
                (e: unknown) => {
                  wake = null;
                  reject(e);
                },
              );
            });
      (async () => {
        authorize(call);
        const first = await next();
        const header = first === 'aborted' || first.done ? null : first.value.header;
        if (!header) throw new AppError('validation_failed', 'The first message of a file write must be its header');
        const segments = parseFilePath(header.path, { allowRoot: false });
        async function* messages(): AsyncGenerator<WriteMessage> {
          for (;;) {
            const m = await next();
            if (m === 'aborted' || m.done) return;
            if (m.value.part === 'data' && m.value.data) yield { data: m.value.data as Buffer };
            else if (m.value.part === 'commit' && m.value.commit) yield { commit: { size: Number(m.value.commit.size) } };
          }
        }
        return files.write(header.appId, segments, messages());
      })().then(
        (res) => callback(null, { size: String(res.size) }),
        (e: unknown) => callback(toServiceError(wrap('WriteFile', e))),
      );
    },

    RenameFile: unary('RenameFile', async (req: { appId: string; from: string; to: string }) => {
      await files.rename(req.appId, parseFilePath(req.from, { allowRoot: false }), parseFilePath(req.to, { allowRoot: false }));
      return { ok: true };
    }),

    DeleteFile: unary('DeleteFile', async (req: { appId: string; path: string; recursive: boolean }) => {
      await files.delete(req.appId, parseFilePath(req.path, { allowRoot: false }), req.recursive);
      return { ok: true };
    }),
  };
}
