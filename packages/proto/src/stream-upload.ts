import type * as grpc from '@grpc/grpc-js';
import { fromServiceError } from './errors';

/** Data messages towards the agent are at least this big: fewer, larger messages move more bytes per second. */
export const WRITE_MESSAGE_BYTES = 256 * 1024;

/** The client-stream messages of every upload to an agent: one header, data, then a commit with the size. */
export interface UploadMessage<H> {
  header?: H;
  data?: Buffer;
  commit?: { size: number };
}

/**
 * Streams `body` to an agent over a client-stream call (WriteFile, UploadZip): the header, the body in messages of
 * at least WRITE_MESSAGE_BYTES, then a commit carrying the byte count, so the agent keeps the upload only when every
 * byte arrived. Backpressure: the next chunk of the body is read only once gRPC has taken the previous message. When
 * the body fails (client gone, limit passed) the call is cancelled and the agent drops its partial file.
 */
export function streamUpload<H, R, T>(
  open: (callback: (err: grpc.ServiceError | null, res?: R) => void) => grpc.ClientWritableStream<UploadMessage<H>>,
  header: H,
  body: AsyncIterable<Uint8Array>,
  result: (res: R) => T,
  agentLabel: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let wakeWriter: (() => void) | null = null;
    const settle = (e: unknown, res?: T) => {
      if (settled) return;
      settled = true;
      // An answer of the agent (an error, say) also wakes a writer that waits for room.
      wakeWriter?.();
      if (e) reject(e);
      else resolve(res as T);
    };
    const call = open((err, res) => {
      if (err) settle(fromServiceError(err, agentLabel));
      else settle(null, result(res as R));
    });
    const write = async (message: UploadMessage<H>) => {
      if (!call.write(message) && !settled) {
        await new Promise<void>((r) => {
          wakeWriter = r;
          call.once('drain', () => r());
        });
        wakeWriter = null;
      }
    };
    (async () => {
      await write({ header });
      let size = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      for await (const chunk of body) {
        if (settled) return;
        size += chunk.length;
        pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        pendingBytes += chunk.length;
        if (pendingBytes >= WRITE_MESSAGE_BYTES) {
          await write({ data: pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes) });
          pending = [];
          pendingBytes = 0;
        }
      }
      if (settled) return;
      if (pendingBytes > 0) await write({ data: Buffer.concat(pending, pendingBytes) });
      await write({ commit: { size } });
      call.end();
    })().catch((e: unknown) => {
      call.cancel();
      settle(e);
    });
  });
}
