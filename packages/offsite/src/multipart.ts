import { Writable } from 'node:stream';
import type { CompletedPart, S3Client } from '@aws-sdk/client-s3';
import { s3 } from './sdk';

export interface PartsOptions {
  bucket: string;
  key: string;
  contentType: string;
  /** Bytes of every part but the last (S3: at least 5 MiB). */
  partBytes: number;
  /** Parts sent at once; memory is (queueSize + 1) × partBytes, whatever the object's size. */
  queueSize: number;
  /** Ask the storage to check and keep each part's SHA-256 (PartChecksums computes it). */
  checksums: boolean;
  /** Called when a part was taken by the storage (timings). */
  onPart?: () => void;
  /** A failure of the storage, turned into the error the stream fails with (a sentence). */
  explain: (err: unknown) => Error;
}

/**
 * A multipart upload as a Writable (docs/decisions/0036, "Parts from a pool"), over the SDK's own multipart commands
 * (CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload; its signer, retries and
 * checksums): what is written is copied into part buffers taken from a pool of `queueSize + 1`, each sent as a part
 * once full and given back to the pool once the storage took it. Nothing else is allocated per part, so memory stays
 * at the pool whatever the size — lib-storage's `Upload` concatenates every part into a new buffer, which outlives
 * the young generation and waited for a full collection: the agent held 90–120 MB of them. Writing waits while every
 * buffer is in use (backpressure on the dump). An object smaller than one part goes as one PUT. The stream finishes
 * once the storage completed the object; it fails with the storage's error, the upload aborted (no parts left).
 */
export class MultipartWriter extends Writable {
  private readonly pool: Buffer[] = [];
  private allocated = 0;
  private current: Buffer | null = null;
  private filled = 0;
  private partNumber = 0;
  private uploadId: Promise<string> | null = null;
  private readonly parts: CompletedPart[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;
  /** Resolved when a part buffer comes back to the pool (or a part failed). */
  private released: (() => void) | null = null;

  constructor(
    private readonly client: S3Client,
    private readonly o: PartsOptions,
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.take(chunk).then(() => done(), done);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.finish().then(() => done(), done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    // Cut by the other side (the dump failed) or failed here: the upload is aborted, its parts removed.
    this.abort().then(() => done(err), () => done(err));
  }

  private async take(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.failure) throw this.failure;
      if (!this.current) {
        this.current = await this.buffer();
        this.filled = 0;
      }
      const copied = chunk.copy(this.current, this.filled, offset);
      this.filled += copied;
      offset += copied;
      if (this.filled === this.o.partBytes) this.send();
    }
  }

  /** A free part buffer: from the pool, a new one while fewer than queueSize + 1 exist, else once one comes back. */
  private async buffer(): Promise<Buffer> {
    for (;;) {
      if (this.failure) throw this.failure;
      const free = this.pool.pop();
      if (free) return free;
      if (this.allocated < this.o.queueSize + 1) {
        this.allocated += 1;
        return Buffer.allocUnsafeSlow(this.o.partBytes);
      }
      await new Promise<void>((resolve) => (this.released = resolve));
    }
  }

  private wake(): void {
    const resolve = this.released;
    this.released = null;
    resolve?.();
  }

  /** The current buffer goes as the next part; it returns to the pool once the storage took it. */
  private send(): void {
    const buffer = this.current!;
    const body = buffer.subarray(0, this.filled);
    const partNumber = ++this.partNumber;
    this.current = null;
    this.filled = 0;
    const sending = (async () => {
      const UploadId = await this.create();
      const r = await this.client.send(
        new (s3().UploadPartCommand)({ Bucket: this.o.bucket, Key: this.o.key, UploadId, PartNumber: partNumber, Body: body, ContentLength: body.length, ...(this.o.checksums ? { ChecksumAlgorithm: 'SHA256' as const } : {}) }),
      );
      this.parts.push({ PartNumber: partNumber, ETag: r.ETag, ...(r.ChecksumSHA256 ? { ChecksumSHA256: r.ChecksumSHA256 } : {}) });
      this.o.onPart?.();
    })().then(
      () => void this.pool.push(buffer),
      (err: unknown) => {
        this.failure ??= this.o.explain(err);
      },
    );
    const tracked = sending.finally(() => {
      this.inFlight.delete(tracked);
      this.wake();
    });
    this.inFlight.add(tracked);
  }

  private create(): Promise<string> {
    this.uploadId ??= this.client
      .send(new (s3().CreateMultipartUploadCommand)({ Bucket: this.o.bucket, Key: this.o.key, ContentType: this.o.contentType, ...(this.o.checksums ? { ChecksumAlgorithm: 'SHA256' as const } : {}) }))
      .then((r) => {
        if (!r.UploadId) throw new Error('The storage started the multipart upload without an upload id');
        return r.UploadId;
      });
    return this.uploadId;
  }

  private async finish(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.partNumber === 0) {
      // Smaller than one part: one PUT.
      const body = this.current ? this.current.subarray(0, this.filled) : Buffer.alloc(0);
      await this.client
        .send(new (s3().PutObjectCommand)({ Bucket: this.o.bucket, Key: this.o.key, Body: body, ContentLength: body.length, ContentType: this.o.contentType, ...(this.o.checksums ? { ChecksumAlgorithm: 'SHA256' as const } : {}) }))
        .catch((err: unknown) => {
          throw this.o.explain(err);
        });
      this.o.onPart?.();
      return;
    }
    if (this.filled > 0) this.send();
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
    if (this.failure) throw this.failure;
    const UploadId = await this.uploadId!;
    const Parts = [...this.parts].sort((a, b) => a.PartNumber! - b.PartNumber!);
    await this.client.send(new (s3().CompleteMultipartUploadCommand)({ Bucket: this.o.bucket, Key: this.o.key, UploadId, MultipartUpload: { Parts } })).catch((err: unknown) => {
      throw this.o.explain(err);
    });
    this.uploadId = null;
  }

  private async abort(): Promise<void> {
    this.failure ??= new Error('The upload was stopped');
    this.wake();
    await Promise.allSettled([...this.inFlight]);
    const uploadId = this.uploadId;
    this.uploadId = null;
    if (!uploadId) return;
    const id = await uploadId.catch(() => null);
    if (id) await this.client.send(new (s3().AbortMultipartUploadCommand)({ Bucket: this.o.bucket, Key: this.o.key, UploadId: id })).catch(() => undefined);
  }
}
