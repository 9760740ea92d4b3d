import type { Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { AppError } from '@slipway/core';

/**
 * The one receiver of client-streamed uploads (Files.WriteFile, Builds.UploadZip): a header, data messages, then a
 * commit carrying the byte count (`streamUpload` of @slipway/proto is the sending side). An upload without its
 * commit (the caller cancelled, the stream broke) is incomplete, and nothing of it may be kept.
 */
export interface UploadChunk<H> {
  part?: string;
  header?: H | null;
  data?: Buffer;
  commit?: { size: string | number } | null;
}

/** What follows the header: data, then the commit (absent when the sender gave up). */
export type UploadPart = { data: Buffer } | { commit: { size: number } };

/** The header (which must come first), then the rest of the stream as parts, read one message at a time. */
export async function openUpload<H>(messages: AsyncIterator<UploadChunk<H>>, what: string): Promise<{ header: H; parts: AsyncGenerator<UploadPart> }> {
  const first = await messages.next();
  const header = first.done ? null : first.value.header;
  if (!header) throw new AppError('validation_failed', `The first message of ${what} must be its header`);
  async function* parts(): AsyncGenerator<UploadPart> {
    for (let m = await messages.next(); !m.done; m = await messages.next()) {
      if (m.value.part === 'data' && m.value.data) yield { data: m.value.data };
      else if (m.value.part === 'commit' && m.value.commit) yield { commit: { size: Number(m.value.commit.size) } };
    }
  }
  return { header, parts: parts() };
}

export interface ReceiveLimits {
  maxBytes: number;
  /** The `payload_too_large` message. */
  tooLarge: string;
  /** Fed every byte written (the .zip's SHA-256). */
  hash?: Hash;
}

/**
 * Writes the parts into `file` until the commit, and answers the size. Throws when the limit is passed, when the
 * commit's size is not the size received, and when the parts end without a commit: the caller then drops the file.
 */
export async function receiveInto(file: FileHandle, parts: AsyncIterable<UploadPart>, limits: ReceiveLimits): Promise<number> {
  let received = 0;
  for await (const m of parts) {
    if ('commit' in m) {
      if (m.commit.size !== received) throw new AppError('validation_failed', `The upload sent ${received} bytes but committed ${m.commit.size}`);
      return received;
    }
    received += m.data.length;
    if (received > limits.maxBytes) throw new AppError('payload_too_large', limits.tooLarge);
    limits.hash?.update(m.data);
    for (let off = 0; off < m.data.length; ) off += (await file.write(m.data, off, m.data.length - off)).bytesWritten;
  }
  throw new AppError('validation_failed', 'The upload ended before it was complete');
}
