import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, chown, lchown, lstat, mkdir, open, readdir, readlink, rename, rm, symlink, utimes, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * A block-level delta of a folder (issue 32, docs/decisions/0037-drain-and-moves.md): how a database's data folder,
 * copied to the target while the engine ran (a pre-copy, possibly inconsistent), is brought to the source's exact
 * state once the engine is stopped there, by sending only what differs.
 *
 * 1. The target describes what it holds (`signatureOf`): every directory, symbolic link and regular file under the
 *    folder with its owner, mode and time, and for each file the SHA-256 (first 16 bytes) of each fixed-size block.
 * 2. The source compares its own files with that description (`deltaOf`) and sends: the paths to remove (gone on the
 *    source, or of another kind there), every directory, link and file that differs (kind, owner, mode, time, a link's
 *    target, a file's size or any block) with its owner, mode and time, and of a file only the blocks whose hash
 *    differs or that the target does not have.
 * 3. The target applies it (`applyDelta`): removals, then each file truncated or extended to its size and the sent
 *    blocks written at their offsets, owners, modes and times set. The target then holds the source's bytes exactly.
 *    A new file whose first block is the first block of a file the target removes is made by renaming that file, and
 *    only its differing blocks are sent (engines recycle files under new names: PostgreSQL's WAL segments).
 *
 * Fixed-size blocks at fixed offsets, not rsync's rolling checksum: database engines rewrite pages in place (PostgreSQL
 * 8 KiB pages in 1 GB segments, InnoDB 16 KiB pages) and append (WAL, binlogs, AOF), so a changed page changes only
 * the blocks it lies in; an engine that rewrites a whole file (Redis's RDB) gets most of that file sent, still correct.
 * Engine-agnostic: nothing here knows an engine. Sockets, FIFOs and devices are left out (no engine keeps one in its
 * data folder that must survive a restart); hard links arrive as separate files.
 *
 * The stream is a sequence of frames: a 4-byte big-endian length, a JSON header, then `n` bytes of data when the header
 * says so. The last frame of a delta is `{ "o": "done" }`: a delta without it is incomplete and refused.
 */

export const DEFAULT_BLOCK_BYTES = 64 * 1024;
const HASH_BYTES = 16;
const MIN_BLOCK_BYTES = 4 * 1024;
const MAX_BLOCK_BYTES = 16 * 1024 * 1024;

type Kind = 'd' | 'f' | 'l';
interface Entry {
  /** Relative to the folder, `/`-separated; `.` is the folder itself. */
  p: string;
  t: Kind;
  /** A file's size. */
  s?: number;
  /** Mode bits, owner, group, modification time (ms), a link's target: an entry equal in all is not sent again. */
  m?: number;
  u?: number;
  g?: number;
  mt?: number;
  to?: string;
}

/** What a delta carries. `rm` a path (and what is under it); `dir`/`link`/`file` an entry; `b` a block of the file before it. */
type DeltaHeader =
  | { o: 'rm'; p: string }
  | { o: 'dir'; p: string; mode: number; uid: number; gid: number; mtime: number }
  | { o: 'link'; p: string; to: string; uid: number; gid: number }
  | { o: 'file'; p: string; size: number; mode: number; uid: number; gid: number; mtime: number; from?: string }
  | { o: 'b'; at: number; n: number }
  | { o: 'done' };

/** What a delta did, for the move's sentence. */
export interface DeltaStats {
  /** Files sent (changed, new, or with other metadata); files the target has as they are are not. */
  files: number;
  /** Files the target did not have (and made from none of its removed files). */
  newFiles: number;
  /** New files made from a file the target removes (a rename), only their differing blocks sent. */
  reused: number;
  removed: number;
  blocks: number;
  blockBytes: number;
  /** Files not read: unchanged since an earlier delta read them (FileMemo). */
  unread: number;
}

export function frame(header: object, data?: Uint8Array): Buffer {
  const json = Buffer.from(JSON.stringify(data ? { ...header, n: data.length } : header));
  const head = Buffer.allocUnsafe(4);
  head.writeUInt32BE(json.length, 0);
  return data ? Buffer.concat([head, json, data]) : Buffer.concat([head, json]);
}

/** The frames of a stream (chunks cut anywhere), each with its data. */
export async function* readFrames(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<{ header: Record<string, unknown>; data: Buffer | null }> {
  let buf = Buffer.alloc(0);
  for await (const chunk of chunks) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
    for (;;) {
      if (buf.length < 4) break;
      const len = buf.readUInt32BE(0);
      if (len > 1024 * 1024) throw new Error('A delta frame header is larger than 1 MB: the stream is not a delta');
      if (buf.length < 4 + len) break;
      const header = JSON.parse(buf.subarray(4, 4 + len).toString()) as Record<string, unknown>;
      const n = typeof header.n === 'number' ? header.n : 0;
      if (buf.length < 4 + len + n) break;
      const data = typeof header.n === 'number' ? Buffer.from(buf.subarray(4 + len, 4 + len + n)) : null;
      buf = buf.subarray(4 + len + n);
      yield { header, data };
    }
  }
  if (buf.length) throw new Error('A delta stream ended inside a frame');
}

/** Every directory, link and regular file under `root` (itself first, parents before children, names sorted), not following links. */
async function* walk(root: string): AsyncGenerator<{ p: string; full: string; st: Stats; statAt: number }> {
  const rootAt = Date.now();
  const rootSt = await lstat(root);
  if (!rootSt.isDirectory()) throw new Error(`${root} is not a folder`);
  yield { p: '.', full: root, st: rootSt, statAt: rootAt };
  async function* under(dir: string, rel: string): AsyncGenerator<{ p: string; full: string; st: Stats; statAt: number }> {
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch (e) {
      // A folder removed while a running engine's data is read (a pre-copy): what is gone is simply not there.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      const p = rel ? `${rel}/${name}` : name;
      const statAt = Date.now();
      let st;
      try {
        st = await lstat(full);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      if (st.isDirectory()) {
        yield { p, full, st, statAt };
        yield* under(full, p);
      } else if (st.isFile() || st.isSymbolicLink()) yield { p, full, st, statAt };
    }
  }
  yield* under(root, '');
}

const kindOf = (st: { isDirectory(): boolean; isSymbolicLink(): boolean }): Kind => (st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : 'f');
const blockHash = (data: Uint8Array) => createHash('sha256').update(data).digest().subarray(0, HASH_BYTES);

/** Reads `handle` from `at` into `buf` until full or the end of the file; answers the bytes read. */
async function readFully(handle: FileHandle, buf: Buffer, at: number): Promise<number> {
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await handle.read(buf, got, buf.length - got, at + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

/** Bytes read at a time: whole blocks, at least 1 MiB (16 reads per MiB of 64 KiB blocks would be 16 round trips). */
const readBytesFor = (blockBytes: number) => Math.max(1, Math.floor((1024 * 1024) / blockBytes)) * blockBytes;

/**
 * The blocks of a file in order, up to `limit` bytes (or its end): each `block` is a view of a buffer reused by the
 * next read (copy what is kept). A last block may be short.
 */
async function* blocksOf(handle: FileHandle, blockBytes: number, buf: Buffer, limit = Number.MAX_SAFE_INTEGER): AsyncGenerator<{ at: number; index: number; block: Buffer }> {
  for (let at = 0; at < limit; ) {
    const got = await readFully(handle, buf.length > limit - at ? buf.subarray(0, limit - at) : buf, at);
    if (got === 0) return;
    for (let off = 0; off < got; off += blockBytes) yield { at: at + off, index: (at + off) / blockBytes, block: buf.subarray(off, Math.min(off + blockBytes, got)) };
    if (got < buf.length) return;
    at += got;
  }
}

export function checkBlockBytes(blockBytes: number): number {
  if (!Number.isInteger(blockBytes) || blockBytes < MIN_BLOCK_BYTES || blockBytes > MAX_BLOCK_BYTES) {
    throw new Error(`The block size must be an integer from ${MIN_BLOCK_BYTES} to ${MAX_BLOCK_BYTES} bytes`);
  }
  return blockBytes;
}

/**
 * What earlier reads of a folder learnt of each file: its status when looked at (before the read) and its blocks'
 * hashes. On the source, a later delta skips reading a file whose status is still the same and whose hashes are the
 * target's: the final copy then reads only what changed since the last pass, not the whole folder, in the write gap.
 * On the target, a later signature reuses the hashes of a file unchanged since.
 */
export type FileMemo = Map<string, { size: number; mtimeMs: number; ctimeMs: number; ino: number; dev: number; statAt: number; hashes: Buffer }>;
/**
 * A file modified this close before it was looked at may have been written again within the same timestamp (times are
 * kept at a clock tick's precision, 1 s on some filesystems): it is read again ("racily clean", as git says). A write
 * after the look gets a newer time than an older one; a change of owner or mode (not of content) shows in the ctime.
 */
const RACY_MS = 2_000;
const unchangedSince = (m: NonNullable<ReturnType<FileMemo['get']>>, st: Stats) =>
  m.size === st.size && m.mtimeMs === st.mtimeMs && m.ctimeMs === st.ctimeMs && m.ino === st.ino && m.dev === st.dev && m.mtimeMs < m.statAt - RACY_MS;

/**
 * What the target holds under `root`, as frames (files unchanged since an earlier signature with `memo` are not read
 * again): `{ v: 1, block }`, then one frame per entry (`p`, `t`, a file's `s`)
 * whose data, for a file, is the 16-byte hash of each block in order. A missing `root` is described as empty.
 */
export async function signatureOf(root: string, blockBytes = DEFAULT_BLOCK_BYTES, memo?: FileMemo): Promise<Buffer> {
  checkBlockBytes(blockBytes);
  const out: Buffer[] = [frame({ v: 1, block: blockBytes })];
  const exists = await lstat(root).then((st) => st.isDirectory(), () => false);
  if (!exists) return Buffer.concat(out);
  const buf = Buffer.allocUnsafe(readBytesFor(blockBytes));
  const seen = new Set<string>();
  for await (const { p, full, st, statAt } of walk(root)) {
    const t = kindOf(st);
    const meta = { m: st.mode & 0o7777, u: st.uid, g: st.gid, mt: st.mtimeMs };
    if (t !== 'f') {
      out.push(frame({ p, t, ...meta, ...(t === 'l' ? { to: await readlink(full).catch(() => '') } : {}) }));
      continue;
    }
    seen.add(p);
    // Unchanged since an earlier signature read it: its hashes then. Here the time that tells is the ctime (a delta
    // sets a file's mtime to the source's, in the past; its ctime is when it was written here).
    const before = memo?.get(p);
    if (before && before.hashes.length === Math.ceil(st.size / blockBytes) * HASH_BYTES && unchangedSince(before, st) && before.ctimeMs < before.statAt - RACY_MS) {
      out.push(frame({ p, t, s: st.size, ...meta }, before.hashes));
      continue;
    }
    const handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const hashes: Buffer[] = [];
      let size = 0;
      for await (const { block } of blocksOf(handle, blockBytes, buf)) {
        hashes.push(blockHash(block));
        size += block.length;
      }
      const all = Buffer.concat(hashes);
      out.push(frame({ p, t, s: size, ...meta }, all));
      if (memo && size === st.size) memo.set(p, { size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev, statAt, hashes: all });
      else memo?.delete(p);
    } finally {
      await handle.close();
    }
  }
  for (const p of memo?.keys() ?? []) if (!seen.has(p)) memo!.delete(p);
  return Buffer.concat(out);
}

/** A signature read back: the block size and each entry with its block hashes. */
async function parseSignature(signature: Uint8Array): Promise<{ blockBytes: number; entries: Map<string, Entry & { hashes: Buffer | null }> }> {
  let blockBytes = 0;
  const entries = new Map<string, Entry & { hashes: Buffer | null }>();
  for await (const { header, data } of readFrames([signature])) {
    if (header.v === 1) {
      blockBytes = checkBlockBytes(Number(header.block));
      continue;
    }
    const p = String(header.p);
    const t = header.t as Kind;
    if (!['d', 'f', 'l'].includes(t)) throw new Error(`The signature holds an entry of unknown kind: ${p}`);
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    entries.set(p, { p, t, s: num(header.s), m: num(header.m), u: num(header.u), g: num(header.g), mt: num(header.mt), to: typeof header.to === 'string' ? header.to : undefined, hashes: data });
  }
  if (!blockBytes) throw new Error('The signature has no block size: it is not a signature');
  return { blockBytes, entries };
}

/** How many changed-block bytes a delta frame batches before it is yielded (fewer, larger messages). */
const YIELD_BYTES = 1024 * 1024;

/**
 * The frames that make the folder described by `signature` equal to `root`: removals first (top-most paths only),
 * then every entry of `root` in walk order, each file followed by the blocks the target lacks. Frames are batched into
 * chunks of about 1 MB. `live`: the folder may change while it is read (a running engine's): files that vanish are
 * left out and a file read short keeps the size it was seen with (the next delta, made stopped, corrects it).
 */
export async function* deltaOf(root: string, signature: Uint8Array, stats?: DeltaStats, memo?: FileMemo): AsyncGenerator<Buffer> {
  const { blockBytes, entries } = await parseSignature(signature);
  const s: DeltaStats = stats ?? { files: 0, newFiles: 0, reused: 0, removed: 0, blocks: 0, blockBytes: 0, unread: 0 };
  const source = new Map<string, { full: string; st: Stats; statAt: number }>();
  for await (const e of walk(root)) source.set(e.p, { full: e.full, st: e.st, statAt: e.statAt });
  // The memo keeps what this walk saw; files gone are forgotten. Hashes of another block size are of no use.
  for (const p of memo?.keys() ?? []) if (!source.has(p)) memo!.delete(p);
  if (memo && [...memo.values()].some((m) => m.hashes.length !== Math.ceil(m.size / blockBytes) * HASH_BYTES)) memo.clear();

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const push = (b: Buffer) => {
    pending.push(b);
    pendingBytes += b.length;
  };
  const flush = () => {
    const out = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return out;
  };

  // Removals: what the target has that the source has not, or has as another kind; under a removed path nothing more.
  // Those of another kind go first (the source's kind is made in their place); the others last, because a removed file
  // may first become a new file of the source (a rename, told by its first block: PostgreSQL recycles WAL segments
  // under new names, 16 MB each that would otherwise be sent whole).
  const removed: string[] = [];
  const removedLast: string[] = [];
  const bases = new Map<string, string[]>();
  for (const [p, e] of entries) {
    if (p === '.') continue;
    const mine = source.get(p);
    if (mine && kindOf(mine.st) === e.t) continue;
    if (removed.some((r) => p.startsWith(`${r}/`))) continue;
    removed.push(p);
    if (mine) {
      push(frame({ o: 'rm', p } satisfies DeltaHeader));
      s.removed++;
      continue;
    }
    removedLast.push(p);
    if (e.t === 'f' && e.hashes && e.hashes.length >= HASH_BYTES) {
      const first = e.hashes.subarray(0, HASH_BYTES).toString('hex');
      bases.set(first, [...(bases.get(first) ?? []), p]);
    }
  }
  const gone = (p: string) => removed.some((r) => p === r || p.startsWith(`${r}/`));
  const usedBases = new Set<string>();

  const buf = Buffer.allocUnsafe(readBytesFor(blockBytes));
  for (const [p, { full, st, statAt }] of source) {
    const t = kindOf(st);
    const { uid, gid } = st;
    const mode = st.mode & 0o7777;
    const theirs = gone(p) ? undefined : entries.get(p);
    // An entry the target has with the same kind, mode, owner and time (a file: and every block) is not sent again.
    const sameMeta = theirs !== undefined && theirs.t === t && theirs.u === uid && theirs.g === gid && (t === 'l' || (theirs.m === mode && Math.abs((theirs.mt ?? 0) - st.mtimeMs) < 1));
    if (t === 'd') {
      if (!sameMeta) push(frame({ o: 'dir', p, mode, uid, gid, mtime: st.mtimeMs } satisfies DeltaHeader));
    } else if (t === 'l') {
      let to: string;
      try {
        to = await readlink(full);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      if (!sameMeta || theirs.to !== to) push(frame({ o: 'link', p, to, uid, gid } satisfies DeltaHeader));
    } else {
      // Unchanged since an earlier delta read it, and the target holds those very blocks: nothing to read.
      const before = memo?.get(p);
      if (before && theirs?.t === 'f' && theirs.s === st.size && theirs.hashes && unchangedSince(before, st) && before.hashes.equals(theirs.hashes)) {
        s.unread++;
        if (!sameMeta) {
          s.files++;
          push(frame({ o: 'file', p, size: st.size, mode, uid, gid, mtime: st.mtimeMs } satisfies DeltaHeader));
        }
        continue;
      }
      let handle: FileHandle;
      try {
        handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      try {
        const size = st.size;
        const known = theirs?.t === 'f';
        let hashes = known ? theirs.hashes : null;
        let theirBlocks = hashes ? hashes.length / HASH_BYTES : 0;
        /** A removed file of the target this new file is made from (renamed), its blocks then compared. */
        let from: string | undefined;
        // The file's frame (the target truncates or extends it to `size`) goes before its first block, or alone when
        // its size or metadata differ, or not at all when the target has it as it is.
        let announced = false;
        const announce = () => {
          if (announced) return;
          announced = true;
          s.files++;
          if (from) s.reused++;
          else if (!known) s.newFiles++;
          push(frame({ o: 'file', p, size, mode, uid, gid, mtime: st.mtimeMs, ...(from ? { from } : {}) } satisfies DeltaHeader));
        };
        const mine: Buffer[] = [];
        let read = 0;
        for await (const { at, index: i, block } of blocksOf(handle, blockBytes, buf, size)) {
          const hash = blockHash(block);
          mine.push(hash);
          read += block.length;
          if (i === 0 && !known) {
            const basis = bases.get(hash.toString('hex'))?.find((b) => !usedBases.has(b));
            if (basis) {
              usedBases.add(basis);
              from = basis;
              hashes = entries.get(basis)!.hashes;
              theirBlocks = hashes!.length / HASH_BYTES;
            }
          }
          if (i < theirBlocks && hash.equals(hashes!.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES))) continue;
          announce();
          s.blocks++;
          s.blockBytes += block.length;
          push(frame({ o: 'b', at }, Buffer.from(block)));
          if (pendingBytes >= YIELD_BYTES) yield flush();
        }
        if (!known || !sameMeta || theirs.s !== size) announce();
        // What this read saw, for the next delta; a file read short (it shrank meanwhile) is not remembered.
        if (memo && read === size) memo.set(p, { size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev, statAt, hashes: Buffer.concat(mine) });
        else memo?.delete(p);
      } finally {
        await handle.close();
      }
    }
    if (pendingBytes >= YIELD_BYTES) yield flush();
  }
  for (const p of removedLast) {
    if (usedBases.has(p)) continue;
    push(frame({ o: 'rm', p } satisfies DeltaHeader));
    s.removed++;
  }
  push(frame({ o: 'done' } satisfies DeltaHeader));
  yield flush();
}

/** A relative path of a delta, refused when it could leave the folder. */
function relative(p: unknown): string {
  if (typeof p !== 'string' || p === '' || p.includes('\0') || p.startsWith('/')) throw new Error(`A delta names an invalid path: ${String(p)}`);
  if (p === '.') return p;
  if (p.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) throw new Error(`A delta names an invalid path: ${p}`);
  return p;
}

const int = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Error(`A delta's ${what} is not a whole number`);
  return v;
};

/**
 * Applies a delta of `deltaOf` to `root` (made when missing), as described above; nothing is followed through a
 * symbolic link (every parent of a written path must be a real folder under `root`). A delta that ends without its
 * `done` frame throws; what was applied of it stays (the caller discards the folder).
 */
export async function applyDelta(root: string, chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<DeltaStats> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const stats: DeltaStats = { files: 0, newFiles: 0, reused: 0, removed: 0, blocks: 0, blockBytes: 0, unread: 0 };
  /** Folders known to be real folders (not links) under root. */
  const folders = new Set<string>(['.']);
  const dirTimes: { full: string; mtime: number }[] = [];
  let file: { handle: FileHandle; mtime: number } | null = null;
  let done = false;

  const full = (p: string) => (p === '.' ? root : path.join(root, ...p.split('/')));
  const parentOk = async (p: string) => {
    const parent = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '.';
    if (folders.has(parent)) return;
    await parentOk(parent);
    const st = await lstat(full(parent));
    if (!st.isDirectory()) throw new Error(`A delta writes under ${parent}, which is not a folder on this server`);
    folders.add(parent);
  };
  const closeFile = async () => {
    if (!file) return;
    const { handle, mtime } = file;
    file = null;
    try {
      await handle.utimes(mtime / 1000, mtime / 1000);
    } finally {
      await handle.close();
    }
  };

  try {
    for await (const { header, data } of readFrames(chunks)) {
      if (done) throw new Error('A delta continues after its end');
      const o = header.o;
      if (o === 'b') {
        if (!file || !data) throw new Error('A delta sends a block outside of a file');
        const at = int(header.at, 'offset');
        for (let off = 0; off < data.length; ) off += (await file.handle.write(data, off, data.length - off, at + off)).bytesWritten;
        stats.blocks++;
        stats.blockBytes += data.length;
        continue;
      }
      await closeFile();
      if (o === 'done') {
        done = true;
        continue;
      }
      const p = relative(header.p);
      if (p !== '.') await parentOk(p);
      const target = full(p);
      if (o === 'rm') {
        if (p === '.') throw new Error('A delta cannot remove the folder itself');
        await rm(target, { recursive: true, force: true });
        for (const f of [...folders]) if (f === p || f.startsWith(`${p}/`)) folders.delete(f);
        stats.removed++;
      } else if (o === 'dir') {
        const st = await lstat(target).catch(() => null);
        if (st && !st.isDirectory()) throw new Error(`${p} is not a folder on this server (a delta must remove it first)`);
        if (!st) await mkdir(target, { mode: 0o700 });
        await chown(target, int(header.uid, 'owner'), int(header.gid, 'group'));
        await chmod(target, int(header.mode, 'mode') & 0o7777);
        folders.add(p);
        dirTimes.push({ full: target, mtime: Number(header.mtime) });
      } else if (o === 'link') {
        if (typeof header.to !== 'string') throw new Error(`The link ${p} of a delta has no target`);
        await rm(target, { force: true });
        await symlink(header.to, target);
        await lchown(target, int(header.uid, 'owner'), int(header.gid, 'group'));
      } else if (o === 'file') {
        if (header.from !== undefined) {
          // Made from a file this delta removes (a rename): that file moves here, then its differing blocks follow.
          const from = relative(header.from);
          if (from === '.') throw new Error('A delta cannot make a file from the folder itself');
          await parentOk(from);
          if (!(await lstat(full(from))).isFile()) throw new Error(`${from} is not a file on this server`);
          if (await lstat(target).then(() => true, () => false)) throw new Error(`${p} is already on this server: a delta makes only new files from removed ones`);
          await rename(full(from), target);
          stats.reused++;
        }
        const existed = await lstat(target).then((st) => {
          if (!st.isFile()) throw new Error(`${p} is not a file on this server (a delta must remove it first)`);
          return true;
        }, (e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return false;
          throw e;
        });
        const handle = await open(target, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
        file = { handle, mtime: Number(header.mtime) };
        await handle.truncate(int(header.size, 'size'));
        await handle.chown(int(header.uid, 'owner'), int(header.gid, 'group'));
        await handle.chmod(int(header.mode, 'mode') & 0o7777);
        stats.files++;
        if (!existed) stats.newFiles++;
      } else throw new Error(`A delta holds an unknown operation: ${String(o)}`);
    }
    await closeFile();
  } finally {
    if (file) await (file as { handle: FileHandle }).handle.close().catch(() => undefined);
  }
  if (!done) throw new Error('The delta ended before it was complete');
  // Folders' times last (writing into a folder changes its time), deepest first.
  for (const d of dirTimes.reverse()) await utimes(d.full, d.mtime / 1000, d.mtime / 1000);
  return stats;
}
