import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { s3 } from './sdk';

/** Where backups go: an S3-compatible bucket (AWS S3, Cloudflare R2, Backblaze B2, MinIO, Wasabi, Ceph). */
export interface S3Target {
  /** `https://s3.eu-west-1.amazonaws.com`, `https://<account>.r2.cloudflarestorage.com`, `http://127.0.0.1:9000`. */
  endpoint: string;
  region: string;
  bucket: string;
  /** Prepended to every key (`slipway/` → `slipway/<database>/<backup>.enc`); may be empty. */
  prefix: string;
  /** `https://endpoint/bucket/key` rather than `https://bucket.endpoint/key` (MinIO, Ceph, most self-hosted servers). */
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface S3ClientOptions {
  /** Tries per request (the SDK's retry strategy); the probe uses 1 so that a failure is said at once. */
  maxAttempts?: number;
  /** Milliseconds to open a connection (default 10 s). */
  connectionTimeoutMs?: number;
  /** Milliseconds without a byte on an open request before it fails (default 60 s). */
  requestTimeoutMs?: number;
}

/** The SDK's client for a target: the maintained signer (SigV4), never one of ours. */
export function s3Client(target: S3Target, options: S3ClientOptions = {}): S3Client {
  return new (s3().S3Client)({
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.pathStyle,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: { connectionTimeout: options.connectionTimeoutMs ?? 10_000, requestTimeout: options.requestTimeoutMs ?? 60_000 },
    // Checksums only when an operation needs them: many S3-compatible servers refuse the newer trailing CRC32 headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A key under the target's prefix. */
export function objectKey(target: Pick<S3Target, 'prefix'>, name: string): string {
  return `${target.prefix}${name}`;
}

export type ProbeStage = 'write' | 'read' | 'delete';

/** Why a request to the destination failed, as a word (for programs) and a sentence (for people). */
export type FailureKind = 'dns' | 'unreachable' | 'tls' | 'credentials' | 'bucket_missing' | 'permission' | 'clock_skew' | 'mismatch' | 'other';

export interface ProbeResult {
  ok: boolean;
  /** The step that failed (null when ok). */
  stage: ProbeStage | null;
  reason: FailureKind | null;
  /** A sentence: what was checked, or what failed and what to do. */
  message: string;
  elapsedMs: number;
}

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

// Node's (OpenSSL's) certificate verification codes and TLS errors: a CA certificate served as a server's is
// INVALID_PURPOSE, a broken chain INVALID_CA / PATH_LENGTH_EXCEEDED, a bad date ERROR_IN_CERT_*.
const TLS_CODES = /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH|INVALID_PURPOSE$|INVALID_CA$|PATH_LENGTH_EXCEEDED$|ERROR_IN_CERT_)/;

/** The network code of an error or of one of its causes (the SDK wraps Node's errors). */
function networkCode(err: unknown): string | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth += 1) {
    const code = (current as ErrorShape).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as ErrorShape).cause;
  }
  // The SDK's retry layer wraps an error that is not an Error of its realm (jest's sandbox) in a bare message.
  const message = err instanceof Error || (err && typeof err === 'object') ? String((err as ErrorShape).message ?? '') : String(err);
  return (
    /\b(?:connect|getaddrinfo|read|write|socket) ([A-Z][A-Z_]+)\b/.exec(message)?.[1] ??
    /\b((?:CERT|ERR_TLS|ERR_SSL|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|INVALID_PURPOSE|INVALID_CA)[A-Z_]*)\b/.exec(message)?.[1] ??
    TLS_MESSAGES.find(([pattern]) => pattern.test(message))?.[1] ??
    null
  );
}

/** OpenSSL's sentences for certificate failures, for a wrapped error that kept the message but lost the code. */
const TLS_MESSAGES: [RegExp, string][] = [
  [/unable to verify the first certificate/i, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  [/self[- ]signed certificate in certificate chain/i, 'SELF_SIGNED_CERT_IN_CHAIN'],
  [/self[- ]signed certificate/i, 'DEPTH_ZERO_SELF_SIGNED_CERT'],
  [/unable to get local issuer certificate/i, 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'],
  [/certificate has expired/i, 'CERT_HAS_EXPIRED'],
  [/unsuitable certificate purpose/i, 'INVALID_PURPOSE'],
  [/does not match certificate's altnames/i, 'ERR_TLS_CERT_ALTNAME_INVALID'],
  [/wrong version number/i, 'ERR_SSL_WRONG_VERSION_NUMBER'],
];

/**
 * What a failed request to `target` means, in words. Works on the SDK's service errors (their `name` is S3's error
 * code) and on Node's network errors. Never includes the secret key (only the endpoint, bucket and key id).
 */
export function explainFailure(err: unknown, target: S3Target): { reason: FailureKind; message: string } {
  const e = (err && typeof err === 'object' ? err : {}) as ErrorShape;
  const name = typeof e.name === 'string' ? e.name : '';
  const status = typeof e.$metadata?.httpStatusCode === 'number' ? e.$metadata.httpStatusCode : null;
  const code = networkCode(err);
  const host = hostOf(target.endpoint);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { reason: 'dns', message: `The endpoint's host name ${host} could not be resolved (DNS): check the endpoint's spelling.` };
  }
  if (code && TLS_CODES.test(code)) {
    return { reason: 'tls', message: `The TLS connection to ${host} failed (${code}): its certificate is not trusted by this server, or the endpoint does not speak HTTPS.` };
  }
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || name === 'TimeoutError') {
    return { reason: 'unreachable', message: `The endpoint ${host} could not be reached (${code ?? 'timed out'}): check its address and port, and that this server may connect to it.` };
  }
  if (name === 'NoSuchBucket') {
    return { reason: 'bucket_missing', message: `The bucket ${target.bucket} does not exist at ${host}: create it, or correct the bucket's name.` };
  }
  if (name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || name === 'InvalidToken' || name === 'ExpiredToken' || name === 'AuthorizationHeaderMalformed') {
    return { reason: 'credentials', message: `The storage refused the credentials (${name}): check the access key id ${target.accessKeyId} and its secret key, and the region ${target.region}.` };
  }
  if (name === 'RequestTimeTooSkewed') {
    return { reason: 'clock_skew', message: "The storage refused the request because this server's clock differs too much from its own (RequestTimeTooSkewed): set the clock right (NTP)." };
  }
  if (name === 'AccessDenied' || name === 'AllAccessDisabled' || status === 403) {
    return { reason: 'permission', message: `The credentials are valid but may not use the bucket ${target.bucket} (${name || 'HTTP 403'}): allow them to put, get and delete objects${target.prefix ? ` under ${target.prefix}` : ''}.` };
  }
  if (status === 404) {
    return { reason: 'bucket_missing', message: `The bucket ${target.bucket} was not found at ${host} (HTTP 404): create it, or correct the bucket's name or the path-style setting.` };
  }
  const what = name || code || (status ? `HTTP ${status}` : 'an unknown error');
  const detail = typeof e.message === 'string' && e.message !== '' && e.message !== name ? `: ${e.message}` : '';
  return { reason: 'other', message: `The storage at ${host} answered ${what}${detail}.` };
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

const STAGE_WORDS: Record<ProbeStage, string> = { write: 'Writing a probe object', read: 'Reading the probe object back', delete: 'Deleting the probe object' };

/**
 * Writes a small probe object under the prefix, reads it back (same bytes), deletes it. Each step is tried once; the
 * first failure is the answer, said in words.
 */
export async function probeTarget(target: S3Target, options: S3ClientOptions = {}): Promise<ProbeResult> {
  const started = Date.now();
  const client = s3Client(target, { maxAttempts: 1, connectionTimeoutMs: 5000, requestTimeoutMs: 15_000, ...options });
  const key = objectKey(target, `.slipway-probe-${randomBytes(8).toString('hex')}`);
  const body = randomBytes(64);
  let stage: ProbeStage = 'write';
  const elapsed = (): number => Date.now() - started;
  try {
    await client.send(new (s3().PutObjectCommand)({ Bucket: target.bucket, Key: key, Body: body, ContentLength: body.length }));
    stage = 'read';
    const got = await client.send(new (s3().GetObjectCommand)({ Bucket: target.bucket, Key: key }));
    const bytes = got.Body ? Buffer.from(await got.Body.transformToByteArray()) : Buffer.alloc(0);
    if (!bytes.equals(body)) {
      return { ok: false, stage, reason: 'mismatch', message: `The probe object read back from ${target.bucket} differs from what was written (${bytes.length} of ${body.length} bytes): the storage does not keep objects as written.`, elapsedMs: elapsed() };
    }
    stage = 'delete';
    await client.send(new (s3().DeleteObjectCommand)({ Bucket: target.bucket, Key: key }));
    return { ok: true, stage: null, reason: null, message: `A probe object was written to ${target.bucket}/${key}, read back intact and deleted.`, elapsedMs: elapsed() };
  } catch (err) {
    const { reason, message } = explainFailure(err, target);
    return { ok: false, stage, reason, message: `${STAGE_WORDS[stage]} failed. ${message}`, elapsedMs: elapsed() };
  } finally {
    client.destroy();
  }
}
