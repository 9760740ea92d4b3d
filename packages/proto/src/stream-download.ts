import { Readable } from 'node:stream';
import type * as grpc from '@grpc/grpc-js';
import { AppError, type AgentTarget } from '@slipway/core';
import { fromServiceError } from './errors';
import { label } from './unary';

/** The server-stream messages of every download from an agent: one header (`info`), then data. */
export interface DownloadChunk<I> {
  info?: I | null;
  data?: Buffer;
  part?: 'info' | 'data';
}

/** What a download says when it fails: what the header is of, and the errors for a body longer or shorter than announced. */
export interface DownloadText {
  header: string;
  /** Absent: a longer body is only found out at its end (as `short`). */
  grew?: string;
  short: string;
}

/**
 * Reads a download from an agent over a server-stream call (ReadFile, ReadBackup): waits for the header, then gives
 * the bytes as a stream that fails when they do not add up to the size the header announced. A consumer that stops
 * early (the HTTP client went away) ends the transfer on the agent too.
 */
export async function streamDownload<I>(
  call: grpc.ClientReadableStream<DownloadChunk<I>>,
  target: AgentTarget,
  sizeOf: (info: I) => number,
  text: DownloadText,
): Promise<{ info: I; size: number; stream: Readable }> {
  const messages = call[Symbol.asyncIterator]() as AsyncIterator<DownloadChunk<I>>;
  const fail = (e: unknown) => (e instanceof AppError ? e : fromServiceError(e as grpc.ServiceError, label(target)));
  let first: IteratorResult<DownloadChunk<I>>;
  try {
    first = await messages.next();
  } catch (e) {
    throw fail(e);
  }
  if (first.done || first.value.part !== 'info' || !first.value.info) {
    call.cancel();
    throw new AppError('node_unavailable', `The agent at ${label(target)} sent no ${text.header} header`);
  }
  const info = first.value.info;
  const size = sizeOf(info);
  async function* bytes() {
    let sent = 0;
    try {
      for (let next = await messages.next(); !next.done; next = await messages.next()) {
        const data = next.value.data;
        if (next.value.part !== 'data' || !data) continue;
        sent += data.length;
        if (text.grew !== undefined && sent > size) throw new AppError('internal', text.grew);
        yield data;
      }
    } catch (e) {
      throw fail(e);
    } finally {
      if (sent !== size) call.cancel();
    }
    if (sent !== size) throw new AppError('internal', text.short);
  }
  return { info, size, stream: Readable.from(bytes(), { objectMode: false }) };
}
