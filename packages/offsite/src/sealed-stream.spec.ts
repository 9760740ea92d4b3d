import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { HEADER_BYTES, OpenStream, SealStream, TAG_BYTES } from './sealed-stream';

const KEY = randomBytes(32);
const seal = (plain: Buffer, chunk = 64, key = KEY) => buffer(Readable.from(splitInto(plain, 7)).pipe(new SealStream(key, chunk)));
const open = (sealed: Buffer, key = KEY) => buffer(Readable.from(splitInto(sealed, 5)).pipe(new OpenStream(key)));
/** Feeds the stream in odd pieces, as a network does. */
function splitInto(data: Buffer, piece: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += piece) out.push(data.subarray(i, i + piece));
  return out;
}

describe('sealed backup stream (AES-256-GCM in chunks)', () => {
  it.each([0, 1, 63, 64, 65, 128, 1000])('round-trips %i bytes, with the expected size and no plaintext in it', async (size) => {
    const plain = Buffer.alloc(size, 'known-row ');
    const sealed = await seal(plain);
    const chunks = Math.max(1, Math.ceil(size / 64));
    expect(sealed.length).toBe(HEADER_BYTES + size + chunks * TAG_BYTES);
    expect(sealed.includes(Buffer.from('known-row'))).toBe(false);
    expect((await open(sealed)).equals(plain)).toBe(true);
  });

  it('seals pieces larger than a chunk (64 KiB pieces, 1 KiB chunks) to the same layout', async () => {
    const plain = randomBytes(200 * 1024 + 17);
    const sealed = await buffer(Readable.from(splitInto(plain, 64 * 1024)).pipe(new SealStream(KEY, 1024)));
    expect(sealed.length).toBe(HEADER_BYTES + plain.length + Math.ceil(plain.length / 1024) * TAG_BYTES);
    expect((await open(sealed)).equals(plain)).toBe(true);
  });

  it('refuses another key, an altered byte, a cut at a chunk boundary and reordered chunks', async () => {
    const plain = randomBytes(64 * 3 + 10);
    const sealed = await seal(plain);
    const altered = Buffer.from(sealed);
    altered.writeUInt8(altered.readUInt8(HEADER_BYTES + 70) ^ 1, HEADER_BYTES + 70);
    const cut = sealed.subarray(0, HEADER_BYTES + 2 * (64 + TAG_BYTES));
    const c = (i: number) => sealed.subarray(HEADER_BYTES + i * (64 + TAG_BYTES), HEADER_BYTES + (i + 1) * (64 + TAG_BYTES));
    const reordered = Buffer.concat([sealed.subarray(0, HEADER_BYTES), c(1), c(0), sealed.subarray(HEADER_BYTES + 2 * (64 + TAG_BYTES))]);
    await expect(open(sealed, randomBytes(32))).rejects.toThrow(/does not open at chunk 0: another workspace key, or the object was altered or cut short/);
    await expect(open(altered)).rejects.toThrow(/does not open at chunk 0/);
    await expect(open(cut)).rejects.toThrow(/does not open at chunk 1/);
    await expect(open(reordered)).rejects.toThrow(/does not open at chunk 0/);
    await expect(open(Buffer.from('PGDMP plain dump'))).rejects.toThrow(/shorter than its header/);
    await expect(open(Buffer.concat([Buffer.from('PGDMP'), randomBytes(64)]))).rejects.toThrow(/not a sealed Slipway backup \(no SWBK header\)/);
    // A header that declares chunks larger than any we write (it would be held whole in memory) is refused.
    const huge = Buffer.from(sealed);
    huge.writeUInt32BE(0xffffffff, 5);
    await expect(open(huge)).rejects.toThrow(/declares chunks of 4294967295 bytes: it is not a sealed Slipway backup this agent reads/);
  });

  it('with `measure`, counts and hashes what went in and what came out', async () => {
    const plain = randomBytes(3000);
    const sealer = new SealStream(KEY, 1024, { measure: true });
    const sealed = await buffer(Readable.from(splitInto(plain, 100)).pipe(sealer));
    expect(sealer.plain).toMatchObject({ bytes: plain.length });
    expect(sealer.plain!.hash.digest('hex')).toBe(createHash('sha256').update(plain).digest('hex'));
    expect(sealer.sealed).toMatchObject({ bytes: sealed.length });
    expect(sealer.sealed!.hash.digest('hex')).toBe(createHash('sha256').update(sealed).digest('hex'));
    expect(new SealStream(KEY).plain).toBeNull();
  });

  it('never seals two objects alike (salt and nonce per object)', async () => {
    const plain = Buffer.alloc(100, 1);
    const [a, b] = await Promise.all([seal(plain), seal(plain)]);
    expect(a.equals(b)).toBe(false);
  });
});
