import { Readable, pipeline } from 'node:stream';
import { constants, createZstdCompress, createZstdDecompress } from 'node:zlib';
import { AppError } from '@slipway/core';
import type { UploadPart } from '../rpc/upload';

/**
 * Compression of a database's data on its way between two servers (issue 32, decision 0037): zstd at level 1 (about
 * 300 MB/s on one of this machine's cores for incompressible data, more for data that compresses), far cheaper per
 * byte than the relay through the control plane it spares (tar, gRPC framing and TLS three times, at ≈ 16 MB/s on the
 * loaded 2-core machine). The receiver tells a compressed stream by zstd's magic number (a tar or a delta never starts
 * with it), so an exporter that ignored the request (an older agent) is read all the same.
 */
const MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

export function zstdOf(body: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const z = createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: 1 } });
  // A failing body (tar exited non-zero) fails the compressed stream, so the export fails rather than ends short.
  pipeline(Readable.from(body), z, (err) => {
    if (err) z.destroy(err);
  });
  return z as AsyncIterable<Buffer>;
}

/** `chunks` as they were sent: decompressed when they start with zstd's magic number, as they are otherwise. */
export async function* unzstdOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = chunks[Symbol.asyncIterator]();
  // The first bytes, however the stream was cut, tell whether it is compressed.
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < MAGIC.length) {
    const n = await it.next();
    if (n.done) {
      ended = true;
      break;
    }
    head.push(n.value);
    headBytes += n.value.length;
  }
  const rest = (async function* () {
    yield* head;
    if (!ended) for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  if (headBytes < MAGIC.length || !Buffer.concat(head).subarray(0, MAGIC.length).equals(MAGIC)) {
    yield* rest;
    return;
  }
  const z = createZstdDecompress();
  pipeline(Readable.from(rest), z, (err) => {
    if (err) z.destroy(err);
  });
  yield* z as AsyncIterable<Buffer>;
}

/**
 * The data of an upload's parts, and once they are consumed whether the commit arrived with the size received: `done()`
 * throws when it did not (the sender failed or gave up), so what was made of the data must be discarded.
 */
export function committedData(parts: AsyncIterable<UploadPart>): { data: AsyncGenerator<Buffer>; done(): number } {
  let size = 0;
  let committed = false;
  const data = (async function* () {
    for await (const m of parts) {
      if ('commit' in m) {
        if (m.commit.size !== size) throw new AppError('validation_failed', `The upload sent ${size} bytes but committed ${m.commit.size}`);
        committed = true;
        return;
      }
      size += m.data.length;
      yield m.data;
    }
  })();
  return {
    data,
    done: () => {
      if (!committed) throw new AppError('validation_failed', 'The upload ended before it was complete');
      return size;
    },
  };
}
