import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3 } from './sdk';
import { PartChecksums, refusesChecksums } from './checksums';
import { MultipartWriter } from './multipart';
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
  /** SHA-256 of the sealed object, computed on the way up (and again on a full read back). */
  sha256: string;
  /** Bytes and SHA-256 of the dump before encryption (the local backup's own checksum). */
  plainSizeBytes: number;
  plainSha256: string;
  /**
   * How the storage proved it holds the bytes sent: `checksum` — the SHA-256 it computed of every part as it received
   * them, and of the object from those, read back by HEAD (S3's additional checksums); `read back` — the object
   * downloaded whole and hashed again (a storage that keeps no checksums).
   */
  verifiedBy: 'checksum' | 'read back';
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
  /** The verification: HEAD with the storage's checksum, or HEAD and the full GET with its SHA-256. */
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
 * (SealStream) and hashed on the way, every part with its SHA-256 for the storage to check and keep (PartChecksums);
 * then reads back the object's size and the checksum the storage computed (HEAD) — or, from a storage that keeps no
 * checksums, the whole object — which must match what was sent, and writes the manifest `<name>.json`. Nothing is
 * kept on local disk; memory is bounded by the part size and queue. A failure aborts the multipart upload (no parts
 * left behind) and throws an OffsiteError with a sentence.
 */
export async function uploadSealed(target: S3Target, name: string, source: Readable, workspaceKey: Buffer, options: UploadOptions = {}): Promise<StoredBackup> {
  const key = objectKey(target, name);
  const client = s3Client(target);
  const checksums = new PartChecksums(client, key);
  // One stream seals, counts and hashes the dump on its way; the parts are cut from a pool of buffers (MultipartWriter).
  const seal = new SealStream(workspaceKey, DEFAULT_CHUNK_BYTES, { measure: true });
  const started = performance.now();
  let lastPart = started;
  try {
    const writer = new MultipartWriter(client, {
      bucket: target.bucket,
      key,
      contentType: 'application/octet-stream',
      partBytes: options.partBytes ?? 8 * 1024 * 1024,
      queueSize: options.queueSize ?? 2,
      checksums: true,
      onPart: () => (lastPart = performance.now()),
      explain: (err) => sentence('Uploading the backup', err, target),
    });
    // Either side failing stops the other: a dump that fails aborts the upload (no parts left); a storage that fails
    // ends the dump, and its sentence is the error.
    await pipeline(source, seal, writer);
    const object: Sent = { key, sizeBytes: seal.sealed!.bytes, sha256: seal.sealed!.hash.digest('hex') };
    const uploaded = performance.now();
    if (options.timings) Object.assign(options.timings, { uploadMs: Math.round(uploaded - started), partsMs: Math.round(lastPart - started) });
    const verifiedBy = await verify(client, target, object, checksums.expected());
    const stored: StoredBackup = { ...object, plainSizeBytes: seal.plain!.bytes, plainSha256: seal.plain!.hash.digest('hex'), verifiedBy };
    const readBack = performance.now();
    if (options.timings) options.timings.readBackMs = Math.round(readBack - uploaded);
    const manifest = JSON.stringify({ format: 'slipway-sealed-v1', ...options.manifest, ...stored });
    await client
      .send(new (s3().PutObjectCommand)({ Bucket: target.bucket, Key: `${key}.json`, Body: manifest, ContentType: 'application/json' }))
      .catch((err: unknown) => {
        throw sentence('Writing the backup manifest', err, target);
      });
    if (options.timings) options.timings.manifestMs = Math.round(performance.now() - readBack);
    return stored;
  } finally {
    client.destroy();
  }
}

type Sent = Pick<StoredBackup, 'key' | 'sizeBytes' | 'sha256'>;

/**
 * A backup is completed only when the storage proves it holds the bytes sent. HEAD (with checksum mode) reads back
 * the object's size, which must be the bytes sent, and the SHA-256 the storage computed from the parts it checked on
 * receipt (`checksum`, the expected value from PartChecksums) — or, when it answers no checksum, the object is read
 * back whole and hashed again (`read back`).
 */
async function verify(client: S3Client, target: S3Target, sent: Sent, expected: string | null): Promise<StoredBackup['verifiedBy']> {
  const ask = (checksumMode: boolean) => client.send(new (s3().HeadObjectCommand)({ Bucket: target.bucket, Key: sent.key, ...(checksumMode ? { ChecksumMode: 'ENABLED' as const } : {}) }));
  // A storage that took the checksums but refuses the checksum mode of HEAD is asked again without it.
  const head = await (expected ? ask(true).catch((err: unknown) => (refusesChecksums(err) ? ask(false) : Promise.reject(err))) : ask(false)).catch((err: unknown) => {
    throw sentence('Reading the uploaded backup back', err, target);
  });
  checkSize(target, sent, head.ContentLength);
  const reported = head.ChecksumSHA256;
  if (!reported || !expected) {
    await readBack(client, target, sent);
    return 'read back';
  }
  if (reported !== expected) {
    throw new OffsiteError('verification', `The uploaded backup ${sent.key} in ${target.bucket} is not the bytes sent: the storage's checksum of it (SHA-256 ${reported.slice(0, 12)}…) is not that of the parts sent (${expected.slice(0, 12)}…). It is not kept as a completed backup.`);
  }
  return 'checksum';
}

function checkSize(target: S3Target, sent: Sent, stored: number | undefined): void {
  if (stored !== sent.sizeBytes) {
    throw new OffsiteError('verification', `The uploaded backup ${sent.key} is ${stored ?? 'of unknown'} bytes in ${target.bucket}, not the ${sent.sizeBytes} sent: it is not kept as a completed backup.`);
  }
}

/** HEAD (size) then a full read back (SHA-256) of the object, whatever checksums the storage keeps. */
export async function verifyStored(target: S3Target, stored: Sent): Promise<void> {
  const client = s3Client(target);
  try {
    const head = await client.send(new (s3().HeadObjectCommand)({ Bucket: target.bucket, Key: stored.key })).catch((err: unknown) => {
      throw sentence('Reading the uploaded backup back', err, target);
    });
    checkSize(target, stored, head.ContentLength);
    await readBack(client, target, stored);
  } finally {
    client.destroy();
  }
}

/** The object downloaded whole: its bytes and SHA-256 must be the ones sent. */
async function readBack(client: S3Client, target: S3Target, stored: Sent): Promise<void> {
  const got = await client.send(new (s3().GetObjectCommand)({ Bucket: target.bucket, Key: stored.key })).catch((err: unknown) => {
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
}

/**
 * The dump of a stored backup, decrypted as it streams from the storage (restore on any server: only the
 * destination and the workspace key are needed). The stream errors when the object does not open or its SHA-256
 * differs from `expectedSha256`.
 */
export async function openSealed(target: S3Target, key: string, workspaceKey: Buffer, expectedSha256?: string): Promise<Readable> {
  const client = s3Client(target);
  const got = await client.send(new (s3().GetObjectCommand)({ Bucket: target.bucket, Key: key })).catch((err: unknown) => {
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
      await client.send(new (s3().DeleteObjectCommand)({ Bucket: target.bucket, Key: k })).catch((err: unknown) => {
        throw sentence('Deleting the backup from the destination', err, target);
      });
    }
  } finally {
    client.destroy();
  }
}

