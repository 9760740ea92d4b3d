import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { explainFailure, objectKey, s3Client, type FailureKind, type S3Target } from './s3';
import { DEFAULT_CHUNK_BYTES, OpenStream, SealStream } from './sealed-stream';

/** A failure to reach or use the destination, with a sentence a user can act on. */
export class OffsiteError extends Error {
  constructor(
    readonly reason: FailureKind | 'verification',
    message: string,
  ) {
    super(message);
    this.name = 'OffsiteError';
  }
}

/** What a completed upload left in the bucket (also written beside it as `<key>.json`). */
export interface StoredBackup {
  key: string;
  /** Bytes of the sealed object, as read back from the storage. */
  sizeBytes: number;
  /** SHA-256 of the sealed object, computed on the way up and again on a full read back. */
  sha256: string;
  /** Bytes and SHA-256 of the dump before encryption (the local backup's own checksum). */
  plainSizeBytes: number;
  plainSha256: string;
}

export interface UploadOptions {
  /** Multipart part size (default 8 MiB; S3's minimum is 5 MiB). */
  partBytes?: number;
  /** Parts in flight at once (default 2): memory ≈ (queueSize + 1) × partBytes. */
  queueSize?: number;
  /** Written into `<key>.json` beside the object (engine, version, database, backup…): restores elsewhere read it. */
  manifest?: Record<string, unknown>;
  /** Filled with where the time went (logs, bench/offsite): the streamed upload, the read back, the manifest. */
  timings?: UploadTimings;
}

export interface UploadTimings {
  /** From the first byte until the storage completed the multipart upload. */
  uploadMs?: number;
  /** Of which: until the last part was sent (the rest is the storage assembling the object). */
  partsMs?: number;
  /** HEAD and the full GET with its SHA-256. */
  readBackMs?: number;
  manifestMs?: number;
}

/** Counts and hashes what passes through. */
class Tap extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(data);
    this.bytes += data.length;
    done(null, data);
  }
}

const sentence = (what: string, err: unknown, target: S3Target): OffsiteError => {
  if (err instanceof OffsiteError) return err;
  const { reason, message } = explainFailure(err, target);
  return new OffsiteError(reason, `${what} failed. ${message}`);
};

/**
 * Streams `source` (a dump) to `<prefix><name>` as a multipart upload, encrypted with the workspace's backup key
 * (SealStream) and hashed on the way; then reads the object back whole (size and SHA-256 must match) and writes the
 * manifest `<name>.json`. Nothing is kept on local disk; memory is bounded by the part size and queue.
 * A failure aborts the multipart upload (no parts left behind) and throws an OffsiteError with a sentence.
 */
export async function uploadSealed(target: S3Target, name: string, source: Readable, workspaceKey: Buffer, options: UploadOptions = {}): Promise<StoredBackup> {
  const key = objectKey(target, name);
  const client = s3Client(target);
  // One stream between the dump and the upload: it seals, counts and hashes both sides, and hands its pieces to the
  // upload as they are (lib-storage gathers them into parts: the only copy besides the cipher's).
  const seal = new SealStream(workspaceKey, DEFAULT_CHUNK_BYTES, { measure: true, pieces: true });
  const started = performance.now();
  try {
    const upload = new Upload({
      client,
      params: { Bucket: target.bucket, Key: key, Body: seal, ContentType: 'application/octet-stream' },
      partSize: options.partBytes ?? 8 * 1024 * 1024,
      queueSize: options.queueSize ?? 2,
      leavePartsOnError: false,
    });
    let lastPart = started;
    upload.on('httpUploadProgress', () => (lastPart = performance.now()));
    const feeding = pipeline(source, seal);
    // Either side failing stops the other: a dump that fails aborts the upload; an upload that fails ends the dump.
    // Both are waited for; when the upload failed, its sentence is the reason (the feeding side then only saw its
    // streams cut), else the feeding side's error.
    const done = upload.done().catch((err: unknown) => {
      source.destroy();
      seal.destroy();
      throw sentence('Uploading the backup', err, target);
    });
    const [fed, sent] = await Promise.allSettled([
      feeding.catch(async (err: unknown) => {
        // An upload that failed cuts its input too: it is let end with its own error (an abort now would race it
        // and hide the storage's reason). An upload still waiting for bytes after a moment is aborted.
        const ended = await Promise.race([done.then(() => true, () => true), delay(2000).then(() => false)]);
        if (!ended) void upload.abort().catch(() => undefined);
        throw err;
      }),
      done,
    ]);
    if (sent.status === 'rejected' && (fed.status === 'fulfilled' || !aborted(sent.reason))) throw sent.reason;
    if (fed.status === 'rejected') throw fed.reason;
    if (sent.status === 'rejected') throw sent.reason;
    const stored: StoredBackup = {
      key,
      sizeBytes: seal.sealed!.bytes,
      sha256: seal.sealed!.hash.digest('hex'),
      plainSizeBytes: seal.plain!.bytes,
      plainSha256: seal.plain!.hash.digest('hex'),
    };
    const uploaded = performance.now();
    if (options.timings) Object.assign(options.timings, { uploadMs: Math.round(uploaded - started), partsMs: Math.round(lastPart - started) });
    await verifyStored(target, stored);
    const readBack = performance.now();
    if (options.timings) options.timings.readBackMs = Math.round(readBack - uploaded);
    const manifest = JSON.stringify({ format: 'slipway-sealed-v1', ...options.manifest, ...stored });
    await client
      .send(new PutObjectCommand({ Bucket: target.bucket, Key: `${key}.json`, Body: manifest, ContentType: 'application/json' }))
      .catch((err: unknown) => {
        throw sentence('Writing the backup manifest', err, target);
      });
    if (options.timings) options.timings.manifestMs = Math.round(performance.now() - readBack);
    return stored;
  } finally {
    client.destroy();
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The upload was aborted by us (the feeding side failed first): its error says nothing of the storage. */
const aborted = (err: unknown): boolean => err instanceof OffsiteError && /\bAbort/i.test(err.message);

/** HEAD (size) then a full read back (SHA-256) of the object: a backup is completed only when both match. */
export async function verifyStored(target: S3Target, stored: Pick<StoredBackup, 'key' | 'sizeBytes' | 'sha256'>): Promise<void> {
  const client = s3Client(target);
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: target.bucket, Key: stored.key })).catch((err: unknown) => {
      throw sentence('Reading the uploaded backup back', err, target);
    });
    if (head.ContentLength !== stored.sizeBytes) {
      throw new OffsiteError('verification', `The uploaded backup ${stored.key} is ${head.ContentLength ?? 'of unknown'} bytes in ${target.bucket}, not the ${stored.sizeBytes} sent: it is not kept as a completed backup.`);
    }
    const got = await client.send(new GetObjectCommand({ Bucket: target.bucket, Key: stored.key })).catch((err: unknown) => {
      throw sentence('Reading the uploaded backup back', err, target);
    });
    const tap = new Tap();
    await pipeline(got.Body as Readable, tap, new PassThrough().resume()).catch((err: unknown) => {
      throw sentence('Reading the uploaded backup back', err, target);
    });
    const sha256 = tap.hash.digest('hex');
    if (tap.bytes !== stored.sizeBytes || sha256 !== stored.sha256) {
      throw new OffsiteError('verification', `The uploaded backup ${stored.key} read back from ${target.bucket} differs from what was sent (SHA-256 ${sha256.slice(0, 12)}…, expected ${stored.sha256.slice(0, 12)}…): it is not kept as a completed backup.`);
    }
  } finally {
    client.destroy();
  }
}

/**
 * The dump of a stored backup, decrypted as it streams from the storage (restore on any server: only the
 * destination and the workspace key are needed). The stream errors when the object does not open or its SHA-256
 * differs from `expectedSha256`.
 */
export async function openSealed(target: S3Target, key: string, workspaceKey: Buffer, expectedSha256?: string): Promise<Readable> {
  const client = s3Client(target);
  const got = await client.send(new GetObjectCommand({ Bucket: target.bucket, Key: key })).catch((err: unknown) => {
    client.destroy();
    throw sentence('Reading the backup from the destination', err, target);
  });
  const tap = new Tap();
  const check = new Transform({
    transform: (data: Buffer, _enc, done) => done(null, data),
    flush: (done) => {
      const sha256 = tap.hash.digest('hex');
      done(expectedSha256 && sha256 !== expectedSha256 ? new OffsiteError('verification', `The backup ${key} in ${target.bucket} changed since it was made (SHA-256 differs): it is not restored.`) : null);
    },
  });
  const out = new PassThrough();
  pipeline(got.Body as Readable, tap, check, new OpenStream(workspaceKey), out)
    .catch((err: unknown) => out.destroy(err as Error))
    .finally(() => client.destroy());
  return out;
}

/** Removes a stored backup and its manifest (retention, a user's delete). An absent object is not an error. */
export async function removeStored(target: S3Target, key: string): Promise<void> {
  const client = s3Client(target);
  try {
    // One DELETE each (S3 answers 204 for an absent key): DeleteObjects needs Content-MD5, which some servers refuse.
    for (const k of [key, `${key}.json`]) {
      await client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: k })).catch((err: unknown) => {
        throw sentence('Deleting the backup from the destination', err, target);
      });
    }
  } finally {
    client.destroy();
  }
}

