import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { BuildError, checkName, CREATE_FLAGS, DEFAULT_EXTRACT_LIMITS, mkdirInside, printable, type ExtractLimits } from './extract';

const BLOCK = 512;
const WHAT = 'The repository archive entry';

export interface TarExtractResult {
  files: number;
  bytes: number;
  /** Symbolic and hard links are not extracted (as in uploads, nothing may point outside the build folder). */
  skippedLinks: number;
}

/**
 * Extracts a .tar.gz (a GitHub tarball of one commit) into `dest` with the protections of .zip uploads (extract.ts):
 * every name checked before anything is written (no absolute paths, `..`, backslashes, control characters), files
 * created with O_EXCL | O_NOFOLLOW inside folders made one segment at a time, devices and FIFOs refused, links
 * skipped, and the entry count, the bytes written and the expansion ratio of the whole archive counted as it
 * inflates, stopping the moment a limit is passed. pax (`x`, `g`) and GNU long-name headers are understood, since
 * `git archive` and GitHub write them. The caller removes `dest` on failure.
 */
export async function extractTarGz(archive: string, dest: string, limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS): Promise<TarExtractResult> {
  const root = path.resolve(dest);
  await mkdir(root, { recursive: true, mode: 0o755 });
  const source = createReadStream(archive);
  const gunzip = createGunzip();
  source.on('error', (e) => gunzip.destroy(e));
  source.pipe(gunzip);
  const input = new Bytes(gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>);
  let entries = 0;
  let files = 0;
  let total = 0;
  let skippedLinks = 0;
  let longName: string | null = null;
  let paxPath: string | null = null;
  const checkRatio = () => {
    if (total > limits.ratioFloorBytes && total > Math.max(source.bytesRead, 1) * limits.maxRatio) {
      throw new BuildError(`The repository archive expands more than ${limits.maxRatio} times its compressed size: it looks like an archive bomb`);
    }
  };
  try {
    for (;;) {
      const header = await input.read(BLOCK);
      if (!header || header.every((b) => b === 0)) break;
      if (!validChecksum(header)) throw new BuildError('The repository archive is damaged (a header checksum does not match)');
      const type = String.fromCharCode(header[156]!);
      const size = readSize(header);
      if (size < 0) throw new BuildError('The repository archive is damaged (a size field is not a number)');
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (type === 'x' || type === 'g' || type === 'L') {
        if (size > 1024 * 1024) throw new BuildError('The repository archive has an extended header over 1 MB');
        const data = await input.read(padded);
        if (!data) throw truncated();
        const text = data.subarray(0, size);
        if (type === 'L') longName = text.toString('utf8').replace(/\0+$/, '');
        if (type === 'x') paxPath = paxValue(text, 'path');
        continue;
      }
      if (++entries > limits.maxEntries) throw new BuildError(`The repository archive has more than ${limits.maxEntries} entries`);
      const name = paxPath ?? longName ?? headerName(header);
      paxPath = null;
      longName = null;
      const segments = checkName(name, WHAT);
      if (type === '1' || type === '2' || type === 'K') {
        skippedLinks++;
        await input.skip(padded);
        continue;
      }
      if (type !== '0' && type !== '\0' && type !== '7' && type !== '5') {
        throw new BuildError(`${WHAT} "${printable(name)}" is a device or special file; only files and folders are accepted`);
      }
      if (segments.length === 0) {
        await input.skip(padded);
        continue;
      }
      const target = path.join(root, ...segments);
      if (!target.startsWith(root + path.sep)) throw new BuildError(`${WHAT} "${printable(name)}" points outside the build folder`);
      if (type === '5') {
        await mkdirInside(root, segments, 'The repository archive');
        await input.skip(padded);
        continue;
      }
      await mkdirInside(root, segments.slice(0, -1), 'The repository archive');
      const mode = parseInt(header.subarray(100, 108).toString('ascii').replace(/\0.*$/, '').trim() || '644', 8) & 0o111 ? 0o755 : 0o644;
      let handle: FileHandle;
      try {
        handle = await open(target, CREATE_FLAGS, mode);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ELOOP' || code === 'EISDIR') throw new BuildError(`The repository archive has the entry "${printable(name)}" twice`);
        if (code === 'ENOTDIR') throw new BuildError(`${WHAT} "${printable(name)}" is inside something that is a file`);
        throw e;
      }
      try {
        await input.each(size, async (chunk) => {
          total += chunk.length;
          if (total > limits.maxTotalBytes) throw new BuildError(`The repository expands to more than ${limits.maxTotalBytes} bytes, the limit for a build`);
          checkRatio();
          await handle.write(chunk);
        });
      } finally {
        await handle.close().catch(() => undefined);
      }
      await input.skip(padded - size);
      files++;
    }
    if (files === 0) throw new BuildError('The repository has no files at that commit');
    return { files, bytes: total, skippedLinks };
  } catch (e) {
    if (e instanceof BuildError) throw e;
    throw new BuildError(`The repository archive is damaged or truncated (${e instanceof Error ? e.message : String(e)})`);
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

const truncated = () => new BuildError('The repository archive is truncated');

function headerName(h: Buffer): string {
  const field = (from: number, to: number) => {
    const raw = h.subarray(from, to);
    const end = raw.indexOf(0);
    return raw.subarray(0, end < 0 ? raw.length : end).toString('utf8');
  };
  const name = field(0, 100);
  const ustar = h.subarray(257, 262).toString('ascii') === 'ustar';
  const prefix = ustar ? field(345, 500) : '';
  return prefix ? `${prefix}/${name}` : name;
}

/** Octal, or base-256 when the high bit of the first byte is set (GNU, for files over 8 GB). */
function readSize(h: Buffer): number {
  const field = h.subarray(124, 136);
  if (field[0]! & 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return n;
  }
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  return /^[0-7]+$/.test(text) ? parseInt(text, 8) : -1;
}

function validChecksum(h: Buffer): boolean {
  const stored = parseInt(h.subarray(148, 156).toString('ascii').replace(/\0.*$/s, '').trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return stored === sum;
}

/** One value of a pax extended header: records `<length> <key>=<value>\n`. */
function paxValue(data: Buffer, key: string): string | null {
  let at = 0;
  let found: string | null = null;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === key) found = record.slice(eq + 1);
    at += length;
  }
  return found;
}

/** Exact-size reads over a stream of chunks, without gathering a file's data in memory. */
class Bytes {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(private readonly it: AsyncIterator<Buffer>) {}

  /** n bytes, or null at a clean end (nothing left); throws when the stream ends within them. */
  async read(n: number): Promise<Buffer | null> {
    while (this.buf.length < n) {
      if (!(await this.pull())) {
        if (this.buf.length === 0) return null;
        throw truncated();
      }
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** Hands n bytes to `use`, chunk by chunk, as they arrive. */
  async each(n: number, use: (chunk: Buffer) => Promise<void>): Promise<void> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.pull())) throw truncated();
      const take = Math.min(left, this.buf.length);
      const chunk = this.buf.subarray(0, take);
      this.buf = this.buf.subarray(take);
      left -= take;
      await use(chunk);
    }
  }

  async skip(n: number): Promise<void> {
    await this.each(n, async () => undefined);
  }

  private async pull(): Promise<boolean> {
    if (this.ended) return false;
    const r = await this.it.next();
    if (r.done) {
      this.ended = true;
      return false;
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, r.value]) : r.value;
    return true;
  }
}
