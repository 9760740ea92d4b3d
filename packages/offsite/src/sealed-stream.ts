import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Backups encrypted client-side before they leave the server (issue 33, docs/decisions/0036-offsite-backups.md):
 * AES-256-GCM in chunks, the STREAM construction (as age and Tink do), so that memory stays bounded whatever the size
 * and a cut, reordered or altered object fails to open.
 *
 * Object = header (32 bytes) then chunks.
 *   header: "SWBK" | version 0x01 | chunk size (u32 BE) | salt (16 random bytes) | nonce prefix (7 random bytes)
 *   chunk i: AES-256-GCM(key, iv = nonce prefix | i (u32 BE) | last (0x00 or 0x01), aad = header) of up to chunk-size
 *            plaintext bytes, then its 16-byte tag. Every chunk but the last holds exactly chunk-size bytes; the last
 *            one (possibly empty) is marked in its IV, so a stream cut at a chunk boundary does not open.
 *   key: HKDF-SHA256(workspace backup key, salt, "slipway backup v1"), one per object.
 */
export const SEALED_MAGIC = Buffer.from('SWBK');
export const SEALED_VERSION = 1;
export const HEADER_BYTES = 32;
export const TAG_BYTES = 16;
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
const INFO = Buffer.from('slipway backup v1');

function objectKeyOf(workspaceKey: Buffer, salt: Buffer): Buffer {
  if (workspaceKey.length !== 32) throw new Error('A backup key is 32 bytes');
  return Buffer.from(hkdfSync('sha256', workspaceKey, salt, INFO, 32));
}

function ivOf(prefix: Buffer, index: number, last: boolean): Buffer {
  const iv = Buffer.alloc(12);
  prefix.copy(iv, 0, 0, 7);
  iv.writeUInt32BE(index, 7);
  iv[11] = last ? 1 : 0;
  return iv;
}

export interface SealOptions {
  /**
   * Counts and hashes (SHA-256) what goes in and what comes out (`plain`, `sealed`) as it passes, instead of a hashing
   * stream on each side: two stream hops fewer per piece on the upload's path.
   */
  measure?: boolean;
}

/** Bytes and SHA-256 of what passed one side of a SealStream (with `measure`). */
export interface Measured {
  bytes: number;
  readonly hash: Hash;
}

/** Encrypts a stream (the dump) chunk by chunk; holds at most one chunk. */
export class SealStream extends Transform {
  private readonly header: Buffer;
  private readonly key: Buffer;
  private readonly prefix: Buffer;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private index = 0;
  /** With `measure`: what came in (the dump) and what went out (the object). */
  readonly plain: Measured | null;
  readonly sealed: Measured | null;

  constructor(workspaceKey: Buffer, private readonly chunkBytes = DEFAULT_CHUNK_BYTES, options: SealOptions = {}) {
    super();
    this.plain = options.measure ? { bytes: 0, hash: createHash('sha256') } : null;
    this.sealed = options.measure ? { bytes: 0, hash: createHash('sha256') } : null;
    const salt = randomBytes(16);
    this.prefix = randomBytes(7);
    this.header = Buffer.alloc(HEADER_BYTES);
    SEALED_MAGIC.copy(this.header, 0);
    this.header[4] = SEALED_VERSION;
    this.header.writeUInt32BE(chunkBytes, 5);
    salt.copy(this.header, 9);
    this.prefix.copy(this.header, 25);
    this.key = objectKeyOf(workspaceKey, salt);
    this.out(this.header);
  }

  private out(sealed: Buffer): void {
    if (this.sealed) {
      this.sealed.hash.update(sealed);
      this.sealed.bytes += sealed.length;
    }
    this.push(sealed);
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.plain) {
      this.plain.hash.update(data);
      this.plain.bytes += data.length;
    }
    this.pending.push(data);
    this.pendingBytes += data.length;
    // Keep the last full chunk back until more comes: only the end of the stream knows which chunk is the last.
    while (this.pendingBytes > this.chunkBytes) this.sealPending(this.chunkBytes, false);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.sealPending(this.pendingBytes, true);
    done();
  }

  /**
   * Seals the first `bytes` of what is pending as chunk `index`, the pieces fed to the cipher as they came and its
   * output pushed as it comes (one copy of the data: the cipher's; no concatenation of the plain or sealed chunk).
   */
  private sealPending(bytes: number, last: boolean): void {
    if (this.index > 0xffffffff) throw new Error('The backup is too large for one sealed object');
    const cipher = createCipheriv('aes-256-gcm', this.key, ivOf(this.prefix, this.index, last));
    cipher.setAAD(this.header);
    this.index += 1;
    let left = bytes;
    while (left > 0) {
      const piece = this.pending[0]!;
      const take = Math.min(left, piece.length);
      this.out(cipher.update(take === piece.length ? piece : piece.subarray(0, take)));
      if (take === piece.length) this.pending.shift();
      else this.pending[0] = piece.subarray(take);
      left -= take;
      this.pendingBytes -= take;
    }
    const end = cipher.final();
    this.out(end.length ? Buffer.concat([end, cipher.getAuthTag()]) : cipher.getAuthTag());
  }
}

/** The largest chunk an object may declare: a header past it is not one of ours (and would hold that much memory). */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/**
 * Decrypts what SealStream wrote; fails (the stream errors) on a wrong key, an altered, cut or reordered object. Holds
 * at most one sealed chunk and what came after it: the pieces as they came, joined once per chunk (a chunk's
 * plaintext is passed on only once its tag checked).
 */
export class OpenStream extends Transform {
  private header: Buffer | null = null;
  private key: Buffer | null = null;
  private chunkBytes = 0;
  private pieces: Buffer[] = [];
  private bytes = 0;
  private index = 0;

  constructor(private readonly workspaceKey: Buffer) {
    super();
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.pieces.push(data);
      this.bytes += data.length;
      if (!this.header && this.bytes >= HEADER_BYTES) this.readHeader(this.held(HEADER_BYTES));
      if (this.header) {
        const sealedChunk = this.chunkBytes + TAG_BYTES;
        // A full sealed chunk followed by more bytes is not the last one.
        while (this.bytes > sealedChunk) this.push(this.open(this.held(sealedChunk), false));
      }
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (!this.header) throw new Error('The backup object is shorter than its header: it is not a sealed Slipway backup');
      this.push(this.open(this.held(this.bytes), true));
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  /** The first `n` bytes held, as one buffer (a piece itself when it is exactly that), the rest kept. */
  private held(n: number): Buffer {
    const first = this.pieces[0];
    let out: Buffer;
    if (first && first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.pieces.shift();
      else this.pieces[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const piece = this.pieces[0]!;
        const copied = piece.copy(out, filled, 0, Math.min(piece.length, n - filled));
        filled += copied;
        if (copied === piece.length) this.pieces.shift();
        else this.pieces[0] = piece.subarray(copied);
      }
    }
    this.bytes -= n;
    return out;
  }

  private readHeader(bytes: Buffer): void {
    const header = Buffer.from(bytes);
    if (!header.subarray(0, 4).equals(SEALED_MAGIC)) throw new Error('The backup object is not a sealed Slipway backup (no SWBK header)');
    if (header[4] !== SEALED_VERSION) throw new Error(`The backup object's format version ${header[4]} is not one this agent reads`);
    this.chunkBytes = header.readUInt32BE(5);
    if (this.chunkBytes === 0 || this.chunkBytes > MAX_CHUNK_BYTES) throw new Error(`The backup object declares chunks of ${this.chunkBytes} bytes: it is not a sealed Slipway backup this agent reads`);
    this.key = objectKeyOf(this.workspaceKey, header.subarray(9, 25));
    this.header = header;
  }

  private open(sealed: Buffer, last: boolean): Buffer {
    if (!this.header || !this.key) throw new Error('no header');
    if (sealed.length < TAG_BYTES) throw new Error('The backup object is cut short (a chunk without its tag)');
    const decipher = createDecipheriv('aes-256-gcm', this.key, ivOf(this.header.subarray(25, 32), this.index, last));
    decipher.setAAD(this.header);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    this.index += 1;
    try {
      const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
      // GCM gives nothing more at the end: final() checks the tag (throws when it differs).
      decipher.final();
      return plain;
    } catch {
      throw new Error(`The backup object does not open at chunk ${this.index - 1}: another workspace key, or the object was altered or cut short`);
    }
  }
}
