import { constants } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { AppError } from '@slipway/core';
import yauzl from 'yauzl';

/** A build that cannot go on; `message` is the deployment's failureReason, written for the user. */
export class BuildError extends AppError {
  constructor(reason: string) {
    super('build_failed', reason);
    this.name = 'BuildError';
  }
}

export interface ExtractLimits {
  /** Entries (files and folders) in the archive. */
  maxEntries: number;
  /** Bytes of all files once decompressed, counted while inflating. */
  maxTotalBytes: number;
  /** Decompressed bytes per compressed byte of one entry, enforced once an entry passes `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries smaller than this are never judged by their ratio (a few KB of zeros compress 1000:1 honestly). */
  ratioFloorBytes: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxEntries: 50_000,
  maxTotalBytes: 1_000_000_000,
  maxRatio: 200,
  ratioFloorBytes: 1_000_000,
};

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const UNIX = 3;
const MAX_NAME = 4096;
const MAX_SEGMENT = 255;
// O_NOFOLLOW: the last component is never a symlink; O_EXCL: never an existing file (a duplicate entry is refused).
export const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Extracts a .zip into `dest` (a fresh, empty folder) and nothing else: names are checked before anything is
 * written (no absolute paths, drive letters, `..`, backslashes, NUL or control characters), symlinks and device
 * entries are refused, and the entry count, the total size and each entry's compression ratio are counted on
 * the bytes actually inflated, aborting the moment a limit is passed. Every failure is a BuildError whose
 * message says what was wrong with the archive; the caller removes `dest`.
 */
export async function extractZip(zipPath: string, dest: string, limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS): Promise<{ files: number; bytes: number }> {
  const root = path.resolve(dest);
  await mkdir(root, { recursive: true, mode: 0o755 });
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(zipPath);
  } catch (e) {
    throw new BuildError(`The upload is not a valid .zip file (${describe(e)})`);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new BuildError(`The .zip has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`);
    }
    let entries = 0;
    let files = 0;
    let total = 0;
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      if (++entries > limits.maxEntries) throw new BuildError(`The .zip has more than ${limits.maxEntries} entries`);
      const name = entryName(entry);
      const segments = checkName(name);
      const kind = entryKind(entry, name);
      if (segments.length === 0) continue; // "./" and the like: the root itself
      const target = path.join(root, ...segments);
      if (!target.startsWith(root + path.sep)) throw new BuildError(`The .zip entry "${printable(name)}" points outside the build folder`);
      if (kind === 'directory') {
        await mkdirInside(root, segments);
        continue;
      }
      if (entry.isEncrypted()) throw new BuildError(`The .zip entry "${printable(name)}" is encrypted; upload an archive without a password`);
      await mkdirInside(root, segments.slice(0, -1));
      const mode = entry.versionMadeBy >> 8 === UNIX && (entry.externalFileAttributes >>> 16) & 0o111 ? 0o755 : 0o644;
      let handle: FileHandle;
      try {
        handle = await open(target, CREATE_FLAGS, mode);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ELOOP' || code === 'EISDIR') throw new BuildError(`The .zip has the entry "${printable(name)}" twice`);
        if (code === 'ENOTDIR') throw new BuildError(`The .zip entry "${printable(name)}" is inside something that is a file`);
        throw e;
      }
      try {
        const stream = await openEntry(zip, entry, name);
        let written = 0;
        // yauzl checks sizes but not CRC-32 ("No CRC-32 Checking" in its README): Node's zlib.crc32 runs over the
        // inflated bytes and must match the central directory's, or the entry's bytes are not the ones archived.
        let crc = 0;
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            written += chunk.length;
            crc = crc32(chunk, crc);
            total += chunk.length;
            if (total > limits.maxTotalBytes) {
              throw new BuildError(`The .zip expands to more than ${limits.maxTotalBytes} bytes, the limit for a build`);
            }
            if (written > limits.ratioFloorBytes && written > Math.max(entry.compressedSize, 1) * limits.maxRatio) {
              throw new BuildError(`The .zip entry "${printable(name)}" expands more than ${limits.maxRatio} times its compressed size: it looks like a zip bomb`);
            }
            await handle.write(chunk);
          }
          if (crc >>> 0 !== entry.crc32 >>> 0) {
            throw new BuildError(
              `The .zip is damaged: the contents of "${printable(name)}" fail their CRC-32 check (the archive says ${hex(entry.crc32)}, the bytes give ${hex(crc)}); make the .zip again and upload it`,
            );
          }
        } catch (e) {
          stream.destroy();
          if (e instanceof BuildError) throw e;
          throw new BuildError(`The .zip is damaged or truncated: "${printable(name)}" could not be read (${describe(e)})`);
        }
      } finally {
        await handle.close().catch(() => undefined);
      }
      files++;
    }
    if (files === 0) throw new BuildError('The .zip contains no files');
    return { files, bytes: total };
  } catch (e) {
    if (e instanceof BuildError) throw e;
    throw new BuildError(`The .zip is damaged or truncated (${describe(e)})`);
  } finally {
    zip.close();
  }
}

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    // decodeStrings off: names are checked here, with reasons the user can act on, not by yauzl.
    yauzl.open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );
}

/** The next entry, or null at the end; an error of the central directory rejects. */
function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (e: yauzl.Entry) => {
      cleanup();
      resolve(e);
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, name: string): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, stream) => {
      if (err) reject(new BuildError(`The .zip entry "${printable(name)}" cannot be read (${describe(err)})`));
      else resolve(stream);
    }),
  );
}

/** The raw name as text: UTF-8 when flagged or valid, else Latin-1 (old archivers wrote code pages). */
function entryName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  if (entry.generalPurposeBitFlag & 0x800) return raw.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

/** The path segments of a safe name; throws for anything that could land outside the build folder. */
export function checkName(name: string, what = 'The .zip entry'): string[] {
  const bad = (why: string) => new BuildError(`${what} "${printable(name)}" ${why}`);
  if (name.length === 0) throw bad('has an empty name');
  if (name.length > MAX_NAME) throw bad(`has a name longer than ${MAX_NAME} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw bad('has a control character (or NUL) in its name');
  if (name.includes('\\')) throw bad('has a backslash in its name (paths in a .zip use "/")');
  if (name.startsWith('/')) throw bad('is an absolute path');
  if (/^[A-Za-z]:/.test(name)) throw bad('starts with a drive letter');
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw bad('contains ".." and would be written outside the build folder');
  if (segments.some((s) => Buffer.byteLength(s) > MAX_SEGMENT)) throw bad(`has a path segment longer than ${MAX_SEGMENT} bytes`);
  return segments;
}

/** file or directory; symlinks, devices, FIFOs and sockets are refused (Unix mode in the high external attributes). */
function entryKind(entry: yauzl.Entry, name: string): 'file' | 'directory' {
  const dir = name.endsWith('/');
  if (entry.versionMadeBy >> 8 === UNIX) {
    const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
    if (type === S_IFLNK) throw new BuildError(`The .zip entry "${printable(name)}" is a symbolic link; links are not accepted in uploads`);
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw new BuildError(`The .zip entry "${printable(name)}" is a device or special file; only files and folders are accepted`);
    if (type === S_IFDIR) return 'directory';
  }
  return dir ? 'directory' : 'file';
}

/** mkdir of each segment below root in turn, refusing to go through anything that is not a plain folder. */
export async function mkdirInside(root: string, segments: string[], what = 'The .zip'): Promise<void> {
  let at = root;
  for (const s of segments) {
    at = path.join(at, s);
    try {
      await mkdir(at, { mode: 0o755 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Only this function and plain file creation write here, so an existing non-folder is a conflict of entries.
      if (!(await lstat(at)).isDirectory()) throw new BuildError(`${what} has a folder and a file both named "${printable(segments.join('/'))}"`);
    }
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A name safe to echo in a reason: control characters shown as escapes, long names cut. */
export function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  const s = name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
