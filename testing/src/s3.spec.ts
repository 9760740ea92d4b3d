import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { startTestS3, type TestS3 } from './s3';

// The test S3 server (issue 33): s3rver behind a front that checks SigV4 signatures as S3 does, so that a wrong secret
// key is refused like a real storage refuses it; and it fails at once, never hangs, when it cannot listen.
describe('startTestS3: s3rver behind a SigV4-checking front', () => {
  let s3: TestS3;
  const KEY_ID = 'AKIATESTFRONT';
  const SECRET = 'the-right-secret';
  beforeAll(async () => {
    s3 = await startTestS3({ buckets: ['b'], credentials: { [KEY_ID]: SECRET } });
  });
  afterAll(() => s3.close());

  const client = (secretAccessKey: string, accessKeyId = KEY_ID) =>
    new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1, requestChecksumCalculation: 'WHEN_REQUIRED' });

  it('passes requests signed with the right secret: put, multipart, list with a query, head, get, delete', async () => {
    const c = client(SECRET);
    await c.send(new PutObjectCommand({ Bucket: 'b', Key: 'dir/a b+c.txt', Body: 'hello' }));
    // Two parts of 5 MiB and a tail: CreateMultipartUpload, UploadPart ×3, CompleteMultipartUpload, all signed.
    const big = Buffer.alloc(11 * 1024 * 1024, 7);
    await new Upload({ client: c, params: { Bucket: 'b', Key: 'dir/big', Body: big }, partSize: 5 * 1024 * 1024, queueSize: 2 }).done();
    const listed = await c.send(new ListObjectsV2Command({ Bucket: 'b', Prefix: 'dir/', MaxKeys: 10 }));
    expect(listed.Contents?.map((o) => o.Key).sort()).toEqual(['dir/a b+c.txt', 'dir/big']);
    expect((await c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'dir/big' }))).ContentLength).toBe(big.length);
    const got = await c.send(new GetObjectCommand({ Bucket: 'b', Key: 'dir/a b+c.txt' }));
    expect(await got.Body!.transformToString()).toBe('hello');
    await c.send(new DeleteObjectCommand({ Bucket: 'b', Key: 'dir/a b+c.txt' }));
    expect([...(await s3.objects('b')).keys()]).toEqual(['dir/big']);
    expect(s3.refused()).toEqual({});
    c.destroy();
  });

  it('refuses a wrong secret key (SignatureDoesNotMatch) and an unknown key id (InvalidAccessKeyId); nothing is stored', async () => {
    const wrong = client('not-the-secret');
    await expect(wrong.send(new PutObjectCommand({ Bucket: 'b', Key: 'nope', Body: 'x' }))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    const unknown = client(SECRET, 'AKIAUNKNOWN');
    await expect(unknown.send(new PutObjectCommand({ Bucket: 'b', Key: 'nope', Body: 'x' }))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    expect((await s3.objects('b')).has('nope')).toBe(false);
    expect(s3.refused()).toEqual({ SignatureDoesNotMatch: 1, InvalidAccessKeyId: 1 });
    wrong.destroy();
    unknown.destroy();
  });

  it('refuses requests dated too far from its clock (RequestTimeTooSkewed) and what `forbid` says no to (AccessDenied)', async () => {
    const skewed = await startTestS3({ buckets: ['b'], clockSkewMs: 3_600_000, forbid: (r) => r.method === 'DELETE' });
    const c = new S3Client({ endpoint: skewed.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, maxAttempts: 1 });
    try {
      await expect(c.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x' }))).rejects.toMatchObject({ name: 'RequestTimeTooSkewed' });
      // The SDK corrects its clock from the server's Date header once it was told: then the key's permissions apply.
      await c.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: 'x' }));
      await expect(c.send(new DeleteObjectCommand({ Bucket: 'b', Key: 'k' }))).rejects.toMatchObject({ name: 'AccessDenied' });
    } finally {
      c.destroy();
      await skewed.close();
    }
  });

  it("keeps S3's SHA-256 checksums: a part or object whose bytes differ is refused (BadDigest, XAmzContentSHA256Mismatch), an upload's composite answered by HEAD", async () => {
    const c = client(SECRET);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest();
    const wrong = sha(Buffer.from('other bytes')).toString('base64');
    await expect(c.send(new PutObjectCommand({ Bucket: 'b', Key: 'sum/bad', Body: 'hello', ChecksumSHA256: wrong }))).rejects.toMatchObject({ name: 'BadDigest', $metadata: { httpStatusCode: 400 } });
    // A payload hash that is not the body's (what a corrupted body looks like to S3) is refused too.
    c.middlewareStack.add((next) => (args) => ((args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha(Buffer.from('x')).toString('hex'), next(args)), { step: 'build', name: 'forgePayloadHash' });
    await expect(c.send(new PutObjectCommand({ Bucket: 'b', Key: 'sum/bad', Body: 'hello' }))).rejects.toMatchObject({ name: 'XAmzContentSHA256Mismatch' });
    c.middlewareStack.remove('forgePayloadHash');
    expect((await s3.objects('b')).has('sum/bad')).toBe(false);

    const part = 5 * 1024 * 1024;
    const big = Buffer.concat([Buffer.alloc(part, 1), Buffer.alloc(part, 2), Buffer.alloc(17, 3)]);
    const withSums = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET }, maxAttempts: 1, requestChecksumCalculation: 'WHEN_SUPPORTED' });
    await new Upload({ client: withSums, params: { Bucket: 'b', Key: 'sum/big', Body: big, ChecksumAlgorithm: 'SHA256' }, partSize: part, queueSize: 2 }).done();
    const composite = `${sha(Buffer.concat([0, 1, 2].map((i) => sha(big.subarray(i * part, (i + 1) * part))))).toString('base64')}-3`;
    expect(await c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'sum/big', ChecksumMode: 'ENABLED' }))).toMatchObject({ ContentLength: big.length, ChecksumSHA256: composite, ChecksumType: 'COMPOSITE' });
    expect((await c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'sum/big' }))).ChecksumSHA256).toBeUndefined();
    await c.send(new PutObjectCommand({ Bucket: 'b', Key: 'sum/small', Body: 'hello', ChecksumSHA256: sha(Buffer.from('hello')).toString('base64') }));
    expect((await c.send(new HeadObjectCommand({ Bucket: 'b', Key: 'sum/small', ChecksumMode: 'ENABLED' }))).ChecksumSHA256).toBe(sha(Buffer.from('hello')).toString('base64'));
    // One after the other: s3rver removes emptied folders on delete, and two deletes in one folder at once race there.
    for (const Key of ['sum/big', 'sum/small']) await c.send(new DeleteObjectCommand({ Bucket: 'b', Key }));
    expect([s3.refusals('BadDigest'), s3.refusals('XAmzContentSHA256Mismatch')]).toEqual([1, 1]);
    withSums.destroy();
    c.destroy();
  });

  it('fails at once with the address when it cannot listen (a taken port, an address not on this machine)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startTestS3({ port })).rejects.toThrow(`The test S3 server cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      await expect(startTestS3({ host: '192.0.2.1' })).rejects.toThrow('The test S3 server cannot listen on 192.0.2.1:0 (EADDRNOTAVAIL)');
    } finally {
      taken.close();
    }
  });
});
