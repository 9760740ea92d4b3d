import { mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { SeedCache } from './seed-cache';

const collect = async (s: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};
const archive = (bytes: number, fill = 1) => Readable.from([Buffer.alloc(bytes / 2, fill), Buffer.alloc(bytes / 2, fill)]);

describe('SeedCache: an image mount path kept as a tar file per image id', () => {
  let dir: string;
  beforeEach(async () => {
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'seed-cache-')), 'seed-cache');
  });
  afterEach(async () => {
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('keeps what was unpacked once, keyed by image id and mount path, and answers it next time', async () => {
    const cache = new SeedCache(dir);
    expect(await cache.get('sha256:aa', '/app')).toBeNull();
    let unpacked = Buffer.alloc(0);
    await cache.fill('sha256:aa', '/app', archive(1000), async (a) => {
      unpacked = await collect(a);
    });
    expect(unpacked.length).toBe(1000);
    const file = await cache.get('sha256:aa', '/app');
    expect(file).not.toBeNull();
    expect(await readFile(file!)).toEqual(unpacked);
    expect(await cache.get('sha256:aa', '/srv')).toBeNull();
    expect(await cache.get('sha256:bb', '/app')).toBeNull();
  });

  it('keeps nothing when the unpacking failed or the archive is over its bound (the unpacking still gets all of it)', async () => {
    const cache = new SeedCache(dir, { archiveBytes: 500, totalBytes: 10_000 });
    await expect(cache.fill('sha256:aa', '/app', archive(400), () => Promise.reject(new Error('tar failed')))).rejects.toThrow('tar failed');
    expect(await cache.get('sha256:aa', '/app')).toBeNull();
    let unpacked = 0;
    await cache.fill('sha256:bb', '/app', archive(2000), async (a) => {
      unpacked = (await collect(a)).length;
    });
    expect(unpacked).toBe(2000);
    expect(await cache.get('sha256:bb', '/app')).toBeNull();
    expect(await readdir(dir)).toEqual([]);
  });

  it('removes the least recently used archives past the total bound', async () => {
    const cache = new SeedCache(dir, { archiveBytes: 1000, totalBytes: 3500 });
    for (const [i, id] of ['a', 'b', 'c'].entries()) {
      await cache.fill(`sha256:${id}`, '/app', archive(1000), async (a) => void (await collect(a)));
      const file = await cache.get(`sha256:${id}`, '/app');
      await utimes(file!, new Date(Date.now() - (10 - i) * 60_000), new Date(Date.now() - (10 - i) * 60_000));
    }
    // a is used again (most recent), then d comes: 4 × 1000 > 3500, b (the least recently used) goes.
    expect(await cache.get('sha256:a', '/app')).not.toBeNull();
    await cache.fill('sha256:d', '/app', archive(1000), async (a) => void (await collect(a)));
    expect(await cache.get('sha256:b', '/app')).toBeNull();
    expect(await cache.get('sha256:c', '/app')).not.toBeNull();
    expect(await cache.get('sha256:a', '/app')).not.toBeNull();
    expect(await cache.get('sha256:d', '/app')).not.toBeNull();
  });
});
