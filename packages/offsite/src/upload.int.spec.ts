import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { S3RVER_ACCESS_KEY_ID, S3RVER_SECRET_KEY, startTestS3, type TestS3 } from '@slipway/testing/s3';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client, type S3Target } from './s3';
import { openSealed, removeStored, uploadSealed, verifyStored } from './upload';

// Sealed multipart uploads to a real S3-protocol server (s3rver on a free loopback port), issue 33 items 2–4.
describe('sealed backups in an S3-compatible bucket (s3rver)', () => {
  let s3: TestS3;
  const KEY = randomBytes(32);
  const KNOWN_ROW = 'known-row: ada lovelace, 1815-12-10';
  beforeAll(async () => {
    s3 = await startTestS3({ buckets: ['backups'] });
  });
  afterAll(() => s3.close());

  const target = (over: Partial<S3Target> = {}): S3Target => ({
    endpoint: s3.endpoint, region: 'us-east-1', bucket: 'backups', prefix: 'ws/', pathStyle: true,
    accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: S3RVER_SECRET_KEY, ...over,
  });
  const client = () => s3Client(target());
  /** A dump-like stream of `mb` MiB with the known row in every MiB, in 64 KiB pieces. */
  function dump(mb: number): Readable {
    const piece = Buffer.alloc(64 * 1024, 'x');
    Buffer.from(KNOWN_ROW).copy(piece, 100);
    return Readable.from((function* pieces() {
      for (let i = 0; i < mb * 16; i += 1) yield piece;
    })());
  }

  it('streams a 12 MiB dump as a multipart upload, encrypted: the object holds no known row, reads back and restores', async () => {
    const stored = await uploadSealed(target(), 'db1/b1.pgdump.swbk', dump(12), KEY, { partBytes: 5 * 1024 * 1024, manifest: { engine: 'postgres' } });
    expect(stored).toEqual({
      key: 'ws/db1/b1.pgdump.swbk', sizeBytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), plainSizeBytes: 12 * 1024 * 1024, plainSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      verifiedBy: 'checksum',
    });
    const objects = await s3.objects('backups');
    const object = objects.get('ws/db1/b1.pgdump.swbk');
    expect(object?.length).toBe(stored.sizeBytes);
    expect(object?.includes(Buffer.from('known-row'))).toBe(false);
    expect(JSON.parse(String(objects.get('ws/db1/b1.pgdump.swbk.json')))).toMatchObject({ format: 'slipway-sealed-v1', engine: 'postgres', sha256: stored.sha256 });

    const restored = await buffer(await openSealed(target(), stored.key, KEY, stored.sha256));
    expect(restored.length).toBe(12 * 1024 * 1024);
    expect(restored.includes(Buffer.from(KNOWN_ROW))).toBe(true);
    await expect(buffer(await openSealed(target(), stored.key, randomBytes(32)))).rejects.toThrow(/does not open at chunk 0/);
    await expect(buffer(await openSealed(target(), stored.key, KEY, '0'.repeat(64)))).rejects.toThrow(/changed since it was made/);
  });

  it('is completed on the checksum the storage computed of the parts it checked (HEAD), without downloading the object', async () => {
    const gets = s3.requests('GET');
    const stored = await uploadSealed(target(), 'db1/c1.swbk', dump(12), KEY, { partBytes: 5 * 1024 * 1024 });
    expect(stored.verifiedBy).toBe('checksum');
    expect(s3.requests('GET')).toBe(gets);
    // What HEAD answers is S3's composite checksum of the object's bytes as stored, in 5 MiB parts: computed here from
    // those bytes, apart from the uploader's own bookkeeping.
    const object = (await s3.objects('backups')).get('ws/db1/c1.swbk')!;
    const parts = [0, 1, 2].map((i) => createHash('sha256').update(object.subarray(i * 5 * 1024 * 1024, (i + 1) * 5 * 1024 * 1024)).digest());
    const head = await client().send(new HeadObjectCommand({ Bucket: 'backups', Key: stored.key, ChecksumMode: 'ENABLED' }));
    expect(head).toMatchObject({ ChecksumSHA256: `${createHash('sha256').update(Buffer.concat(parts)).digest('base64')}-3`, ChecksumType: 'COMPOSITE' });
    expect(createHash('sha256').update(object).digest('hex')).toBe(stored.sha256);
    // A dump that fits one part goes as one PUT: its checksum is the whole object's.
    const small = await uploadSealed(target(), 'db1/c2.swbk', dump(1), KEY);
    expect(small.verifiedBy).toBe('checksum');
    const whole = await client().send(new HeadObjectCommand({ Bucket: 'backups', Key: small.key, ChecksumMode: 'ENABLED' }));
    expect(whole.ChecksumSHA256).toBe(Buffer.from(small.sha256, 'hex').toString('base64'));
  });

  it('reads the object back whole from a storage that keeps no checksums, or refuses their headers (then sent without)', async () => {
    const [ignoring, refusing] = await Promise.all([startTestS3({ buckets: ['backups'], checksums: 'ignore' }), startTestS3({ buckets: ['backups'], checksums: 'refuse' })]);
    try {
      const viaIgnoring = await uploadSealed(target({ endpoint: ignoring.endpoint }), 'db1/i.swbk', dump(12), KEY, { partBytes: 5 * 1024 * 1024 });
      expect(viaIgnoring.verifiedBy).toBe('read back');
      expect(ignoring.requests('GET')).toBe(1);
      const viaRefusing = await uploadSealed(target({ endpoint: refusing.endpoint }), 'db1/r.swbk', dump(12), KEY, { partBytes: 5 * 1024 * 1024 });
      expect(viaRefusing.verifiedBy).toBe('read back');
      expect(refusing.refused()).toEqual({ NotImplemented: 1 });
      expect(refusing.requests('GET')).toBe(1);
      expect(createHash('sha256').update((await refusing.objects('backups')).get('ws/db1/r.swbk')!).digest('hex')).toBe(viaRefusing.sha256);
    } finally {
      await Promise.all([ignoring.close(), refusing.close()]);
    }
  });

  it('is not completed when the storage answers another checksum than that of the parts sent', async () => {
    const forging = await startTestS3({ buckets: ['backups'], forgeChecksum: (key) => key.endsWith('f.swbk') });
    try {
      await expect(uploadSealed(target({ endpoint: forging.endpoint }), 'db1/f.swbk', dump(12), KEY, { partBytes: 5 * 1024 * 1024 })).rejects.toThrow(
        /^The uploaded backup ws\/db1\/f\.swbk in backups is not the bytes sent: the storage's checksum of it \(SHA-256 .{12}…\) is not that of the parts sent \(.{12}…\)\. It is not kept as a completed backup\.$/,
      );
      expect((await forging.objects('backups')).has('ws/db1/f.swbk.json')).toBe(false);
    } finally {
      await forging.close();
    }
  });

  it("aborts the multipart upload when the dump fails midway: the dump's error, no object, no parts left", async () => {
    const deletes = s3.requests('DELETE');
    const failing = Readable.from((async function* pieces() {
      yield* dump(12);
      throw new Error('the dump tool failed');
    })());
    await expect(uploadSealed(target(), 'db1/cut.swbk', failing, KEY, { partBytes: 5 * 1024 * 1024 })).rejects.toThrow('the dump tool failed');
    expect(s3.requests('DELETE')).toBe(deletes + 1);
    expect([...(await s3.objects('backups')).keys()].filter((k) => k.includes('cut'))).toEqual([]);
    expect(await readdir(join(s3.directory, 'backups', '._S3rver_uploads')).catch(() => [])).toEqual([]);
  });

  it('removes the object and its manifest (retention), and an absent one is no error', async () => {
    const stored = await uploadSealed(target(), 'db1/gone.swbk', dump(1), KEY);
    await removeStored(target(), stored.key);
    await removeStored(target(), stored.key);
    expect([...(await s3.objects('backups')).keys()].filter((k) => k.includes('gone'))).toEqual([]);
  });

  it('fails with a sentence when the bucket does not exist', async () => {
    await expect(uploadSealed(target({ bucket: 'no-such-bucket' }), 'db1/b2.swbk', dump(1), KEY)).rejects.toThrow(
      /^Uploading the backup failed\. The bucket no-such-bucket does not exist at 127\.0\.0\.1:\d+: create it, or correct the bucket's name\.$/,
    );
  });

  it('fails with a sentence for an unknown access key id', async () => {
    await expect(uploadSealed(target({ accessKeyId: 'WRONG' }), 'db1/b3.swbk', dump(1), KEY)).rejects.toThrow(/The storage refused the credentials \(InvalidAccessKeyId\)/);
  });

  it('fails with a sentence when the storage is unreachable', async () => {
    await expect(uploadSealed(target({ endpoint: 'http://127.0.0.1:9' }), 'db1/b4.swbk', dump(1), KEY)).rejects.toThrow(/^Uploading the backup failed\. The endpoint 127\.0\.0\.1:9 could not be reached \(ECONNREFUSED\)/);
  });

  it('refuses as completed an object whose bytes differ from what was sent', async () => {
    const stored = await uploadSealed(target(), 'db1/b5.swbk', dump(1), KEY);
    await expect(verifyStored(target(), { ...stored, sizeBytes: stored.sizeBytes + 1 })).rejects.toThrow(/is \d+ bytes in backups, not the \d+ sent/);
    await expect(verifyStored(target(), { ...stored, sha256: 'f'.repeat(64) })).rejects.toThrow(/differs from what was sent/);
  });

});

