import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { startTestS3, startUntrustedTls, type TestS3 } from '@slipway/testing/s3';
import { probeTarget, type S3Target } from './s3';
import { OffsiteError, uploadSealed } from './upload';

// Issue 33 item 1: the destination test call writes, reads back and deletes a probe object and says in words what
// failed — DNS, TLS, unreachable, credentials, bucket missing, permission, clock skew — against servers that fail
// those ways for real: s3rver behind the SigV4-checking front (@slipway/testing/s3), a self-signed HTTPS endpoint, a
// closed port, a name that does not resolve. In process, on loopback only.
describe('the destination test call says what failed, in words', () => {
  const KEY_ID = 'AKIAPROBE';
  const SECRET = `probe-secret-${randomBytes(6).toString('hex')}`;
  let s3: TestS3;
  let skewed: TestS3;
  let readOnly: TestS3;
  let noDelete: TestS3;
  beforeAll(async () => {
    const credentials = { [KEY_ID]: SECRET };
    [s3, skewed, readOnly, noDelete] = await Promise.all([
      startTestS3({ buckets: ['backups'], credentials }),
      // Its clock an hour ahead: this machine's requests look 60 minutes old (S3 allows 15).
      startTestS3({ buckets: ['backups'], credentials, clockSkewMs: 3_600_000 }),
      startTestS3({ buckets: ['backups'], credentials, forbid: (r) => r.method === 'PUT' || r.method === 'POST' }),
      startTestS3({ buckets: ['backups'], credentials, forbid: (r) => r.method === 'DELETE' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([s3, skewed, readOnly, noDelete].map((x) => x?.close()));
  });

  const target = (over: Partial<S3Target> = {}): S3Target => ({
    endpoint: s3.endpoint, region: 'us-east-1', bucket: 'backups', prefix: 'slipway/', pathStyle: true, accessKeyId: KEY_ID, secretAccessKey: SECRET, ...over,
  });

  /** A message matched whole (its parentheses and dots as they are). */
  const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

  const closedPort = async (): Promise<number> => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  };

  it('writes, reads back and deletes a probe object when all is right, and leaves nothing', async () => {
    const r = await probeTarget(target());
    expect(r).toMatchObject({ ok: true, stage: null, reason: null, message: expect.stringMatching(/^A probe object was written to backups\/slipway\/\.slipway-probe-[0-9a-f]+, read back intact and deleted\.$/) });
    expect([...(await s3.objects('backups')).keys()]).toEqual([]);
  });

  it.each([
    ['a wrong secret key (SigV4 signature checked)', () => target({ secretAccessKey: 'not-the-secret' }), 'write', 'credentials', exactly('Writing a probe object failed. The storage refused the credentials (SignatureDoesNotMatch): check the access key id AKIAPROBE and its secret key, and the region us-east-1.')],
    ['an unknown access key id', () => target({ accessKeyId: 'AKIANOBODY' }), 'write', 'credentials', exactly('Writing a probe object failed. The storage refused the credentials (InvalidAccessKeyId): check the access key id AKIANOBODY and its secret key, and the region us-east-1.')],
    ['a bucket that does not exist', () => target({ bucket: 'gone' }), 'write', 'bucket_missing', /^Writing a probe object failed\. The bucket gone does not exist at 127\.0\.0\.1:\d+: create it, or correct the bucket's name\.$/],
    ['keys that may read but not write', () => target({ endpoint: readOnly.endpoint }), 'write', 'permission', exactly('Writing a probe object failed. The credentials are valid but may not use the bucket backups (AccessDenied): allow them to put, get and delete objects under slipway/.')],
    ['keys that may write but not delete', () => target({ endpoint: noDelete.endpoint }), 'delete', 'permission', exactly('Deleting the probe object failed. The credentials are valid but may not use the bucket backups (AccessDenied): allow them to put, get and delete objects under slipway/.')],
    ["a clock an hour off the storage's", () => target({ endpoint: skewed.endpoint }), 'write', 'clock_skew', exactly("Writing a probe object failed. The storage refused the request because this server's clock differs too much from its own (RequestTimeTooSkewed): set the clock right (NTP).")],
    ['a host name that does not resolve', () => target({ endpoint: 'http://slipway-no-such-storage.invalid' }), 'write', 'dns', exactly("Writing a probe object failed. The endpoint's host name slipway-no-such-storage.invalid could not be resolved (DNS): check the endpoint's spelling.")],
  ])('%s', async (_what, over, stage, reason, message) => {
    const r = await probeTarget(over());
    expect(r).toEqual({ ok: false, stage, reason, message: expect.stringMatching(message), elapsedMs: expect.any(Number) });
    expect(r.message).not.toContain(SECRET);
  });

  it('a closed port: unreachable', async () => {
    const port = await closedPort();
    expect(await probeTarget(target({ endpoint: `http://127.0.0.1:${port}` }))).toMatchObject({
      ok: false, stage: 'write', reason: 'unreachable', message: `Writing a probe object failed. The endpoint 127.0.0.1:${port} could not be reached (ECONNREFUSED): check its address and port, and that this server may connect to it.`,
    });
  });

  it('an HTTPS endpoint whose certificate is not trusted: TLS', async () => {
    const tls = await startUntrustedTls();
    try {
      const r = await probeTarget(target({ endpoint: tls.endpoint }));
      expect(r).toMatchObject({ ok: false, stage: 'write', reason: 'tls' });
      expect(r.message).toMatch(/^Writing a probe object failed\. The TLS connection to 127\.0\.0\.1:\d+ failed \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): its certificate is not trusted by this server/);
    } finally {
      await tls.close();
    }
  });

  it('a backup upload with a wrong secret fails with the credentials sentence and leaves no object or part', async () => {
    const dump = Readable.from((function* pieces() {
      for (let i = 0; i < 12 * 16; i += 1) yield Buffer.alloc(64 * 1024, i);
    })());
    const refused = s3.refusals('SignatureDoesNotMatch');
    const failure = await uploadSealed(target({ secretAccessKey: 'not-the-secret' }), 'db/backup.pgdump.sealed', dump, randomBytes(32)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OffsiteError);
    expect(failure).toMatchObject({ reason: 'credentials', message: 'Uploading the backup failed. The storage refused the credentials (SignatureDoesNotMatch): check the access key id AKIAPROBE and its secret key, and the region us-east-1.' });
    expect(s3.refusals('SignatureDoesNotMatch')).toBeGreaterThan(refused);
    expect([...(await s3.objects('backups')).keys()]).toEqual([]);
  });
});
