// An S3-compatible server for tests (issue 33): s3rver speaks the real protocol over HTTP; in front of it, on the port
// tests use, a small verifying front checks every request's SigV4 signature with the maintained signer
// (@smithy/signature-v4, the one the AWS SDK signs with) against the keys it was given, as S3 does — s3rver itself
// checks access key ids but not V4 signatures. A wrong secret key is `403 SignatureDoesNotMatch`, an unknown key id
// `403 InvalidAccessKeyId`, a request dated more than 15 minutes from the server's clock `403 RequestTimeTooSkewed`
// (the clock can be set off with `clockSkewMs`), a request `forbid` matches `403 AccessDenied`; anything signed right
// goes on to s3rver unchanged but for its Authorization header. The front also keeps S3's additional checksums
// (SHA-256), which s3rver ignores: a part or object sent with `x-amz-checksum-sha256` is checked against its bytes
// (`400 BadDigest`) and the checksum kept; a multipart upload created with that algorithm gets the composite checksum
// S3 computes (the SHA-256 of the parts' SHA-256s, then `-N`), answered by HEAD and GET in checksum mode. A signed
// payload hash (`x-amz-content-sha256`) is checked against the body too (`400 XAmzContentSHA256Mismatch`), and
// AbortMultipartUpload, which s3rver lacks, removes the upload's parts.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { createServer as createTlsServer } from 'node:tls';
import { createCertificateAuthority, issueKeyAndCert } from '@slipway/pki';
import { SignatureV4 } from '@smithy/signature-v4';
import S3rver from 's3rver';

export const S3RVER_ACCESS_KEY_ID = 'S3RVER';
export const S3RVER_SECRET_KEY = 'S3RVER';

/** How long startTestS3 waits for s3rver and the front to listen before it fails (s3rver itself never reports a bind error). */
const START_TIMEOUT_MS = 10_000;
/** S3's limit: a request signed more than 15 minutes away from the server's clock is refused. */
const MAX_SKEW_MS = 15 * 60_000;

export interface TestS3Options {
  buckets?: string[];
  /** The address it listens on (default 127.0.0.1; a fleet's servers reach the bridge address, FLEET_HOST_ADDRESS). */
  host?: string;
  /** The port it listens on (default: a free one). */
  port?: number;
  /** Access key id → secret key the front accepts (default S3RVER → S3RVER). */
  credentials?: Record<string, string>;
  /** The server's clock runs this far ahead of this machine's (negative: behind): requests look skewed past 15 minutes. */
  clockSkewMs?: number;
  /** A signed request this says no to is `403 AccessDenied` (a key that may not use the bucket, or not write to it). */
  forbid?: (r: { method: string; path: string; accessKeyId: string }) => boolean;
  /**
   * S3's additional checksums (SHA-256): `keep` (default) checks and keeps them as S3 does; `ignore` lets them through
   * to s3rver, which ignores them (a storage without the feature: HEAD answers no checksum); `refuse` answers
   * `501 NotImplemented` to any request that carries one (a storage that rejects the headers).
   */
  checksums?: 'keep' | 'ignore' | 'refuse';
  /** With `keep`: HEAD and GET answer a wrong checksum for these keys (a storage that holds other bytes than sent). */
  forgeChecksum?: (key: string) => boolean;
}

export interface TestS3 {
  /** `http://<host>:<port>` of the verifying front (use path-style addressing). */
  endpoint: string;
  /** The folder s3rver keeps buckets and objects in. */
  directory: string;
  /** Every object's bytes in `bucket` (the s3rver store: `<bucket>/<key>._S3rver_object`), by key. */
  objects(bucket: string): Promise<Map<string, Buffer>>;
  /** What the front refused so far, by S3 error code (`SignatureDoesNotMatch`, …). */
  refused(): Record<string, number>;
  /** How many requests the front refused with this S3 error code so far. */
  refusals(code: string): number;
  /** How many requests of this method reached the front so far (signed or not): `requests('GET')`. */
  requests(method: string): number;
  close(): Promise<void>;
}

/**
 * s3rver on a loopback port of its own, behind the verifying front on `host:port`. Fails (never hangs) when either
 * cannot listen, with the address in the message.
 */
export async function startTestS3(options: TestS3Options = {}): Promise<TestS3> {
  const host = options.host ?? '127.0.0.1';
  const directory = await mkdtemp(join(tmpdir(), 'slipway-s3-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: (options.buckets ?? []).map((name) => ({ name })) });
  let backPort: number;
  try {
    backPort = ((await withinTime(s3rver.run(), `s3rver did not start listening on 127.0.0.1 within ${START_TIMEOUT_MS / 1000} s`)) as AddressInfo).port;
  } catch (e) {
    await rm(directory, { recursive: true, force: true });
    throw e;
  }
  const refused: Record<string, number> = {};
  const methods: Record<string, number> = {};
  const kept = new Checksums();
  const front = createHttpServer((req, res) => {
    methods[req.method ?? ''] = (methods[req.method ?? ''] ?? 0) + 1;
    void handle(req, res, backPort, directory, options, refused, kept).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String((err as Error).message));
      else res.destroy();
    });
  });
  try {
    await listen(front, options.port ?? 0, host);
  } catch (e) {
    await s3rver.close().catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    throw e;
  }
  const { port } = front.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    directory,
    objects: (bucket) => readObjects(join(directory, bucket)),
    refused: () => ({ ...refused }),
    refusals: (code) => refused[code] ?? 0,
    requests: (method) => methods[method] ?? 0,
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await s3rver.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Listens or fails with the address and the system's reason (EADDRINUSE, EADDRNOTAVAIL, EACCES), within a time. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return withinTime(
    new Promise<void>((resolve, reject) => {
      const failed = (err: NodeJS.ErrnoException) => reject(new Error(`The test S3 server cannot listen on ${host}:${port} (${err.code ?? err.message})`));
      server.once('error', failed);
      server.listen(port, host, () => {
        server.off('error', failed);
        resolve();
      });
    }),
    `The test S3 server did not start listening on ${host}:${port} within ${START_TIMEOUT_MS / 1000} s`,
  );
}

async function withinTime<T>(work: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), START_TIMEOUT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;_.-]+), ?Signature=([0-9a-f]{64})$/;

/** The SDK's Checksum interface over Node's hashes (what @smithy/hash-node does). */
class NodeSha256 {
  private hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {}
}

const bytes = (d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof d === 'string' ? d : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d);

/** Checks one request's signature; the refusal's S3 error code and message, or null when it may go on. */
async function check(req: IncomingMessage, options: TestS3Options): Promise<{ code: string; message: string } | null> {
  const credentials = options.credentials ?? { [S3RVER_ACCESS_KEY_ID]: S3RVER_SECRET_KEY };
  const auth = AUTHORIZATION.exec(req.headers.authorization ?? '');
  if (!auth) return { code: 'AccessDenied', message: 'Anonymous or unsupported authentication (only AWS4-HMAC-SHA256 in the Authorization header is accepted).' };
  const [, accessKeyId, , region, service, signedHeaders, signature] = auth as unknown as [string, string, string, string, string, string, string];
  const secretAccessKey = credentials[accessKeyId];
  if (secretAccessKey === undefined) return { code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!signedAt) return { code: 'AccessDenied', message: 'AWS authentication requires a valid X-Amz-Date header.' };
  const signingDate = new Date(Date.UTC(+signedAt[1]!, +signedAt[2]! - 1, +signedAt[3]!, +signedAt[4]!, +signedAt[5]!, +signedAt[6]!));
  if (Math.abs(signingDate.getTime() - (Date.now() + (options.clockSkewMs ?? 0))) > MAX_SKEW_MS) {
    return { code: 'RequestTimeTooSkewed', message: "The difference between the request time and the server's time is too large." };
  }
  const url = new URL(req.url ?? '/', 'http://front');
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) {
    const value = req.headers[name];
    headers[name] = Array.isArray(value) ? value.join(',') : (value ?? '');
  }
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey }, region, service, sha256: NodeSha256, uriEscapePath: false, applyChecksum: true });
  const path = (req.url ?? '/').split('?')[0]!;
  const signed = await signer.sign({ method: req.method ?? 'GET', protocol: 'http:', hostname: String(req.headers.host ?? '').split(':')[0]!, path, query, headers }, { signingDate, signingRegion: region, signingService: service });
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? signed.headers.Authorization ?? ''))?.[1];
  if (expected !== signature) {
    return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.' };
  }
  if (options.forbid?.({ method: req.method ?? 'GET', path, accessKeyId })) return { code: 'AccessDenied', message: 'Access Denied' };
  return null;
}

/** The checksums the front keeps for s3rver (which keeps none): per upload in progress and per object. */
class Checksums {
  /** `/bucket/key` of multipart uploads created with the SHA-256 algorithm (the latest CreateMultipartUpload of each). */
  readonly created = new Set<string>();
  /** Upload id → part number → SHA-256 of the part as received. */
  readonly parts = new Map<string, Map<number, Buffer>>();
  /** `/bucket/key` → the object's checksum (base64, `-N` for a composite one) and its type. */
  readonly objects = new Map<string, { value: string; type: 'FULL_OBJECT' | 'COMPOSITE' }>();
}

const CHECKSUM_HEADER = /^x-amz-(checksum-|sdk-checksum-algorithm$)/;

async function handle(req: IncomingMessage, res: ServerResponse, backPort: number, directory: string, options: TestS3Options, refused: Record<string, number>, kept: Checksums): Promise<void> {
  const refuse = async (status: number, code: string, message: string) => {
    refused[code] = (refused[code] ?? 0) + 1;
    // The request's body is read to its end first, as S3 does, so that the client sees the answer, not a reset.
    req.resume();
    if (!req.readableEnded) await new Promise((resolve) => req.once('end', resolve).once('error', resolve));
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`;
    res.writeHead(status, { 'content-type': 'application/xml', date: new Date(Date.now() + (options.clockSkewMs ?? 0)).toUTCString() });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const refusal = await check(req, options);
  if (refusal) return refuse(403, refusal.code, refusal.message);
  const mode = options.checksums ?? 'keep';
  if (mode === 'refuse' && Object.keys(req.headers).some((h) => CHECKSUM_HEADER.test(h))) {
    return refuse(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented.');
  }
  const url = new URL(req.url ?? '/', 'http://front');
  const path = url.pathname;
  const uploadId = url.searchParams.get('uploadId');
  const method = req.method ?? 'GET';
  if (method === 'DELETE' && uploadId) {
    // AbortMultipartUpload, which s3rver lacks (405): its parts are removed, as S3 does.
    kept.parts.delete(uploadId);
    if (!/^[0-9a-f]+$/.test(uploadId)) return refuse(404, 'NoSuchUpload', 'The specified upload does not exist.');
    const bucket = decodeURIComponent(path.split('/')[1] ?? '');
    await rm(join(directory, bucket, '._S3rver_uploads', uploadId), { recursive: true, force: true });
    res.writeHead(204, { date: new Date(Date.now() + (options.clockSkewMs ?? 0)).toUTCString() }).end();
    return;
  }
  if (mode === 'ignore') return proxy(req, res, backPort, options);

  if (method === 'POST' && url.searchParams.has('uploads')) {
    // CreateMultipartUpload: the parts of an upload created with SHA-256 carry their checksums.
    if (String(req.headers['x-amz-checksum-algorithm'] ?? '').toUpperCase() === 'SHA256') kept.created.add(path);
    else kept.created.delete(path);
    return proxy(req, res, backPort, options);
  }
  if (method === 'PUT' && !req.headers['x-amz-copy-source']) {
    const body = await buffer(req);
    const digest = createHash('sha256').update(body).digest();
    const signedHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (/^[0-9a-f]{64}$/.test(signedHash) && signedHash !== digest.toString('hex')) {
      return refuse(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
    const checksum = req.headers['x-amz-checksum-sha256'] as string | undefined;
    if (checksum !== undefined && checksum !== digest.toString('base64')) return refuse(400, 'BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
    if (uploadId && checksum !== undefined && !kept.created.has(path)) {
      return refuse(400, 'InvalidRequest', 'Checksum Type mismatch occurred, expected checksum Type: null, actual checksum Type: sha256');
    }
    return proxy(req, res, backPort, options, body, (): Record<string, string> => {
      if (uploadId) {
        if (checksum === undefined) return {};
        const parts = kept.parts.get(uploadId) ?? new Map<number, Buffer>();
        kept.parts.set(uploadId, parts.set(Number(url.searchParams.get('partNumber')), digest));
        return { 'x-amz-checksum-sha256': checksum };
      }
      if (checksum === undefined) kept.objects.delete(path);
      else kept.objects.set(path, { value: checksum, type: 'FULL_OBJECT' });
      return checksum === undefined ? {} : { 'x-amz-checksum-sha256': checksum };
    });
  }
  if (method === 'POST' && uploadId) {
    // CompleteMultipartUpload: the parts listed must be the ones kept (and their checksums, when listed, theirs).
    const body = await buffer(req);
    const listed = [...String(body).matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((m) => ({
      number: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(m[1]!)?.[1]),
      checksum: /<ChecksumSHA256>([^<]*)<\/ChecksumSHA256>/.exec(m[1]!)?.[1],
    }));
    const parts = kept.parts.get(uploadId);
    const withChecksums = kept.created.has(path) && !!parts && listed.every((p) => parts.has(p.number));
    if (withChecksums && listed.some((p) => p.checksum !== undefined && p.checksum !== parts.get(p.number)!.toString('base64'))) {
      return refuse(400, 'InvalidPart', 'One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part\'s entity tag.');
    }
    return proxy(req, res, backPort, options, body, () => {
      kept.parts.delete(uploadId);
      if (!withChecksums) return void kept.objects.delete(path);
      const ofDigests = createHash('sha256');
      for (const p of listed) ofDigests.update(parts.get(p.number)!);
      kept.objects.set(path, { value: `${ofDigests.digest('base64')}-${listed.length}`, type: 'COMPOSITE' });
    });
  }
  if (method === 'DELETE') {
    kept.objects.delete(path);
    return proxy(req, res, backPort, options);
  }
  if ((method === 'HEAD' || method === 'GET') && String(req.headers['x-amz-checksum-mode'] ?? '').toUpperCase() === 'ENABLED') {
    return proxy(req, res, backPort, options, undefined, (): Record<string, string> => {
      const object = kept.objects.get(path);
      if (!object) return {};
      const key = decodeURIComponent(path.split('/').slice(2).join('/'));
      const value = options.forgeChecksum?.(key) ? `${createHash('sha256').update('forged').digest('base64')}${object.value.replace(/^[^-]*/, '')}` : object.value;
      return { 'x-amz-checksum-sha256': value, 'x-amz-checksum-type': object.type };
    });
  }
  return proxy(req, res, backPort, options);
}

/**
 * The request on to s3rver (its body as it comes, or `body` read already), its answer back; `answered` runs on a 2xx
 * answer before it is passed on and gives headers to add to it.
 */
function proxy(req: IncomingMessage, res: ServerResponse, backPort: number, options: TestS3Options, body?: Buffer, answered?: () => Record<string, string> | void): void {
  const headers = { ...req.headers };
  delete headers.authorization;
  delete headers.expect;
  const back = httpRequest({ host: '127.0.0.1', port: backPort, method: req.method, path: req.url, headers }, (answer) => {
    const status = answer.statusCode ?? 502;
    const added = status >= 200 && status < 300 ? (answered?.() ?? {}) : {};
    // Its clock is the front's (the SDK sets its own clock by the Date of every answer).
    res.writeHead(status, { ...answer.headers, ...added, date: new Date(Date.now() + (options.clockSkewMs ?? 0)).toUTCString() });
    answer.pipe(res);
  });
  back.on('error', () => res.destroy());
  req.on('error', () => back.destroy());
  res.on('close', () => {
    if (!res.writableFinished) back.destroy();
  });
  if (body) back.end(body);
  else req.pipe(back);
}

const OBJECT_SUFFIX = '._S3rver_object';

async function readObjects(root: string): Promise<Map<string, Buffer>> {
  const found = new Map<string, Buffer>();
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  for (const entry of entries) {
    const path = join(root, entry);
    if (entry.endsWith(OBJECT_SUFFIX) && (await stat(path)).isFile()) found.set(entry.slice(0, -OBJECT_SUFFIX.length), await readFile(path));
  }
  return found;
}

export interface StoppingS3 {
  /** `http://127.0.0.1:<port>`: the S3 server behind, until it stops. */
  endpoint: string;
  /** Request bytes that went through so far. */
  passed(): number;
  /** Resolves once the server stopped (connections cut, the port refuses). */
  stopped: Promise<void>;
  close(): Promise<void>;
}

/**
 * The S3 server `target` (an endpoint of startTestS3) behind a TCP relay that stops — every connection cut, the port
 * closed so that retries are refused — once `stopAfterBytes` of requests went through: a storage server that goes
 * away in the middle of an upload.
 */
export async function startStoppingS3(target: string, stopAfterBytes: number): Promise<StoppingS3> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let passed = 0;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const server = createServer((client) => {
    const back = connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(back);
    client.on('data', (b: Buffer) => {
      passed += b.length;
      if (passed < stopAfterBytes) return;
      server.close();
      for (const s of sockets) s.destroy();
      stop();
    });
    client.pipe(back).pipe(client);
    for (const s of [client, back]) {
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        (s === client ? back : client).destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    passed: () => passed,
    stopped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * An HTTPS endpoint on loopback whose certificate nobody trusts (a private CA's): what a destination behind a private CA,
 * or an endpoint typed with https for a plain-HTTP server, looks like to a client. It never gets past the handshake.
 */
export async function startUntrustedTls(): Promise<{ endpoint: string; close: () => Promise<void> }> {
  // A server certificate for 127.0.0.1 from a private CA this machine does not trust.
  const { keyPem, certPem } = issueKeyAndCert(createCertificateAuthority('untrusted test storage CA', 1), { commonName: '127.0.0.1', usage: 'server', hosts: ['127.0.0.1'], days: 1 });
  const server = createTlsServer({ key: keyPem, cert: certPem }, (socket) => socket.end());
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `https://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
