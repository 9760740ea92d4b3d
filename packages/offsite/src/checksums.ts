import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';

/** The request headers that ask the storage to check and keep a checksum (S3's additional checksums). */
const CHECKSUM_HEADERS = /^x-amz-(checksum-|sdk-checksum-algorithm$)/i;

interface Request {
  headers: Record<string, string>;
  body?: unknown;
}

interface ServiceError {
  name?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * S3's additional checksums (SHA-256) for one upload (docs/decisions/0036, "Verified by the storage's checksum"): every
 * part — or the single PUT of a small object — carries `x-amz-checksum-sha256`, which the storage checks against the
 * bytes it received (a part that differs is refused, `BadDigest`) and keeps; the completed object then carries a
 * checksum the storage computed from what it kept (the SHA-256 of the parts' SHA-256s, then `-N`), which a HEAD reads
 * back. One SHA-256 of each part serves both that header and the SigV4 payload hash (`x-amz-content-sha256`, which
 * the SDK would otherwise compute again), and is kept here to know what the storage must answer.
 *
 * A storage that refuses the checksum headers (`NotImplemented`, or a 400 that names the checksum) gets the request
 * again without them, once, and the rest of the upload goes without: such an upload is then verified by reading it
 * back whole. A storage that ignores them (s3rver alone, some S3-compatible services) answers no checksum on HEAD:
 * the same.
 */
export class PartChecksums {
  /** SHA-256 of every part sent, by part number (0: the object went as one PUT). */
  private readonly digests = new Map<number, Buffer>();
  /** False once the storage refused the checksum headers. */
  enabled = true;

  /** Hooks into `client`'s requests for the object `key` (UploadPart, PutObject, CreateMultipartUpload). */
  constructor(client: S3Client, key: string) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: unknown; PartNumber?: unknown; ChecksumAlgorithm?: unknown };
        const request = args.request as Request;
        const command = context.commandName;
        if (input.Key !== key || !['UploadPartCommand', 'PutObjectCommand', 'CreateMultipartUploadCommand'].includes(command ?? '')) return next(args);
        if (request.body instanceof Uint8Array) {
          const digest = createHash('sha256').update(request.body).digest();
          request.headers['x-amz-content-sha256'] = digest.toString('hex');
          if (this.enabled) request.headers['x-amz-checksum-sha256'] = digest.toString('base64');
          this.digests.set(command === 'UploadPartCommand' ? Number(input.PartNumber) : 0, digest);
        }
        if (!this.enabled) return next(without(args));
        try {
          return await next(args);
        } catch (err) {
          if (!refusesChecksums(err)) throw err;
          this.enabled = false;
          return next(without(args));
        }
      },
      // Before the SDK's own flexible-checksums step, which leaves a request that already carries one alone.
      { step: 'build', priority: 'high', name: 'slipwayPartChecksums' },
    );
  }

  /**
   * What the storage must answer as the object's SHA-256 (`ChecksumSHA256` of HEAD with checksum mode): the part's own
   * (base64) when it went as one PUT, else the SHA-256 of the parts' digests in order, then `-<parts>`. Null when the
   * checksums were refused or no part went.
   */
  expected(): string | null {
    if (!this.enabled || this.digests.size === 0) return null;
    const whole = this.digests.get(0);
    if (whole) return whole.toString('base64');
    const numbers = [...this.digests.keys()].sort((a, b) => a - b);
    const ofDigests = createHash('sha256');
    for (const n of numbers) ofDigests.update(this.digests.get(n)!);
    return `${ofDigests.digest('base64')}-${numbers.length}`;
  }
}

/** The same request without the checksum headers (and without the algorithm, so that the SDK adds none). */
function without<T extends { input: unknown; request: unknown }>(args: T): T {
  const request = args.request as Request;
  for (const name of Object.keys(request.headers)) if (CHECKSUM_HEADERS.test(name)) delete request.headers[name];
  return { ...args, input: { ...(args.input as object), ChecksumAlgorithm: undefined } };
}

/** The storage said it does not take S3's checksum headers (as opposed to any other refusal). */
export function refusesChecksums(err: unknown): boolean {
  const e = (err && typeof err === 'object' ? err : {}) as ServiceError;
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : '';
  const status = e.$metadata?.httpStatusCode;
  // Bytes that differ from their checksum are a failure of the upload, never a reason to send them without it.
  if (name === 'BadDigest' || name === 'XAmzContentSHA256Mismatch') return false;
  if (name === 'NotImplemented' || status === 501) return true;
  return (status === 400 || name === 'InvalidArgument' || name === 'InvalidRequest') && /checksum/i.test(message);
}
