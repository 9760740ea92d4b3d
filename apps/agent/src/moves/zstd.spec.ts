// Compression of a database's data between two servers (decision 0037): what is compressed comes back as it was, and
// a stream that was not compressed (an older exporter) is read as it is.
import { randomBytes } from 'node:crypto';
import { committedData, unzstdOf, zstdOf } from './zstd';

async function all(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out);
}

async function* of(...chunks: Buffer[]) {
  for (const c of chunks) yield c;
}

describe('zstd of a move', () => {
  it('compresses and decompresses back to the same bytes, smaller when they repeat', async () => {
    const data = [Buffer.from('row '.repeat(100_000)), randomBytes(300_000), Buffer.from('x')];
    const compressed = await all(zstdOf(of(...data)));
    expect(compressed.length).toBeLessThan(320_000);
    // Cut anywhere on the way.
    const cut = [compressed.subarray(0, 3), compressed.subarray(3, 5000), compressed.subarray(5000)];
    expect((await all(unzstdOf(of(...cut)))).equals(Buffer.concat(data))).toBe(true);
  });

  it('passes a stream that was not compressed through as it is, and nothing as nothing', async () => {
    const tar = Buffer.concat([Buffer.from('./\0'), randomBytes(10_000)]);
    expect((await all(unzstdOf(of(tar.subarray(0, 2), tar.subarray(2))))).equals(tar)).toBe(true);
    expect(await all(unzstdOf(of()))).toEqual(Buffer.alloc(0));
  });

  it('fails a compressed stream whose source failed, and a corrupt one', async () => {
    const failing = (async function* () {
      yield Buffer.from('some data');
      throw new Error('tar failed (2): gone');
    })();
    await expect(all(zstdOf(failing))).rejects.toThrow('tar failed (2): gone');
    const compressed = await all(zstdOf(of(randomBytes(100_000))));
    await expect(all(unzstdOf(of(compressed.subarray(0, compressed.length / 2), Buffer.alloc(1000, 7))))).rejects.toThrow();
  });

  it('tells whether the upload was committed with the size it sent', async () => {
    const ok = committedData(of2([{ data: Buffer.from('abc') }, { commit: { size: 3 } }]));
    expect(await all(ok.data)).toEqual(Buffer.from('abc'));
    expect(ok.done()).toBe(3);
    const cut = committedData(of2([{ data: Buffer.from('abc') }]));
    await all(cut.data);
    expect(() => cut.done()).toThrow('The upload ended before it was complete');
    const wrong = committedData(of2([{ data: Buffer.from('abc') }, { commit: { size: 4 } }]));
    await expect(all(wrong.data)).rejects.toThrow('The upload sent 3 bytes but committed 4');
  });
});

async function* of2(parts: ({ data: Buffer } | { commit: { size: number } })[]) {
  for (const p of parts) yield p;
}
