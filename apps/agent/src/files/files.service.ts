// The project folders of apps on this server: `<data dir>/volumes/<appId>`, mounted into the app's container.
// Everything here runs as root on the host while the folder's content is written by the app, which may have put
// symlinks anywhere in it (to /etc, in the middle of a path, swapped in between a check and a use). Node has no
// openat(2), so the folder is walked with directory file descriptors and paths of the form
// `/proc/self/fd/<dir fd>/<name>`: the kernel resolves `/proc/self/fd/<n>` to the very directory that was opened,
// whatever happened to the names above it since, and only `<name>` is looked up in it. Every name is opened with
// O_NOFOLLOW, so a symlink swapped in after the lstat makes the open fail instead of being followed. Linux only.
import { randomBytes } from 'node:crypto';
import { constants as C, lstatSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { AppError, type Logger } from '@slipway/core';
import { receiveInto, type UploadPart } from '../rpc/upload';

/** An app id as the control plane makes them: a canonical lower-case UUID (so never `.meta`, `..` or a path). */
const APP_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Symlinks followed in one resolution at most (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40;
const READ_CHUNK_BYTES = 256 * 1024;

const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

const fdPath = (fd: number) => `/proc/self/fd/${fd}`;
/** `name` inside the directory open as `dir`: the equivalent of openat(dir, name). */
const at = (dir: FileHandle, name: string) => `/proc/self/fd/${dir.fd}/${name}`;

export type EntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface FolderEntry {
  name: string;
  type: EntryType;
  size: number;
  modifiedAtMs: number;
  mode: string;
}

export interface OpenedFile {
  name: string;
  size: number;
  /** Exactly `size` bytes at most; closes the file when it ends or is destroyed. */
  stream: Readable;
}

/** What a write receives: data chunks, then the commit with the total size (absent when the sender gave up). */
export type WriteMessage = UploadPart;

interface Owner {
  uid: number;
  gid: number;
}

/** The handles opened by one operation, closed together at its end. */
class Handles {
  private readonly open: FileHandle[] = [];
  add(h: FileHandle): FileHandle {
    this.open.push(h);
    return h;
  }
  async closeAll(): Promise<void> {
    await Promise.allSettled(this.open.splice(0).map((h) => h.close()));
  }
}

/** Where a path led: the directory that holds its last segment and that segment (null: the folder itself). */
interface Resolved {
  dir: FileHandle;
  name: string | null;
  /** lstat of `name` in `dir`; null when it does not exist. */
  stat: Stats | null;
}

export interface ProjectFilesOptions {
  /** `<data dir>/volumes`. */
  volumesDir: string;
  /** Largest file a write accepts (config.limits.uploadFileBytes). */
  maxFileBytes: number;
  logger: Logger;
  /** Resolves once the app's folder is mounted (after a reboot the agent serves while folders are still being mounted). */
  ready?: (appId: string) => Promise<void>;
}

/**
 * List, read, write, rename and delete inside the project folder of an app, never outside it.
 *
 * Symlinks: a link inside the folder is followed when it is a segment of the path (and at its end for list, read
 * and write) only if its target, read relative to where it lies, stays inside the folder; an absolute target or
 * one that climbs out is refused with `invalid_path` (absolute targets name paths inside the app's container,
 * which mean something else on this host). Rename and delete act on a final symlink itself, never its target.
 * After opening, the file's real path (from /proc/self/fd) is checked to be inside the folder once more.
 */
export class ProjectFiles {
  private volumesReal: string | null = null;

  constructor(private readonly o: ProjectFilesOptions) {}

  async list(appId: string, segments: string[], limit: number): Promise<{ entries: FolderEntry[]; truncated: boolean }> {
    return this.withRoot(appId, async (root, handles) => {
      const r = await this.resolve(root, segments, { followLast: true, create: null }, handles);
      const dir = r.name === null ? r.dir : await this.openDir(r, handles);
      await this.assertInside(root, dir);
      const names = (await readdir(fdPath(dir.fd))).sort();
      const chosen = names.slice(0, Math.max(0, limit));
      // Synchronous lstat in one loop: ~1,000 async calls through the thread pool cost more in promises and
      // scheduling than the system calls themselves. Same `at(dir, name)` paths, so the same confinement.
      const stats = chosen.map((n) => {
        try {
          return lstatSync(at(dir, n), { throwIfNoEntry: false }) ?? null;
        } catch {
          return null;
        }
      });
      const entries: FolderEntry[] = [];
      chosen.forEach((name, i) => {
        const st = stats[i];
        if (st) entries.push({ name, type: typeOf(st), size: st.size, modifiedAtMs: st.mtimeMs, mode: modeOf(st) });
      });
      return { entries, truncated: names.length > chosen.length };
    });
  }

  /** Opens a regular file for reading; the stream closes it. Failures arrive before any byte. */
  async read(appId: string, segments: string[]): Promise<OpenedFile> {
    const handles = new Handles();
    let file: FileHandle | null = null;
    try {
      const root = handles.add(await this.openRoot(appId, true));
      const r = await this.resolve(root, segments, { followLast: true, create: null }, handles);
      if (r.name === null || !r.stat) throw r.name === null ? notAFile() : notFound();
      if (r.stat.isDirectory()) throw notAFile();
      // O_NONBLOCK: opening a FIFO the app made must not hang; it is refused below as not a regular file.
      file = await open(at(r.dir, r.name), C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK).catch(fsError);
      const st = await file.stat();
      if (!st.isFile()) throw notAFile();
      await this.assertInside(root, file);
      const size = st.size;
      const name = r.name;
      if (size === 0) return { name, size, stream: Readable.from([]) };
      // `end` caps the stream at the size announced: a file that grows meanwhile is cut there.
      const stream = file.createReadStream({ start: 0, end: size - 1, highWaterMark: READ_CHUNK_BYTES, autoClose: true });
      file = null;
      return { name, size, stream };
    } finally {
      if (file) await file.close().catch(() => undefined);
      await handles.closeAll();
    }
  }

  /**
   * Writes the messages into a temporary file beside the target (owned like the folder, fsynced), then renames it
   * over the target, only once the commit arrived with the size received. Anything else (an error, the limit
   * passed, a stream that ends or is aborted without commit) removes the temporary file and leaves the old one.
   */
  async write(appId: string, segments: string[], messages: AsyncIterable<WriteMessage>): Promise<{ size: number }> {
    return this.withRoot(appId, async (root, handles) => {
      const owner = await ownerOf(root);
      const r = await this.resolve(root, segments, { followLast: true, create: owner }, handles);
      if (r.name === null || r.stat?.isDirectory()) throw notAFile();
      const mode = r.stat?.isFile() ? r.stat.mode & 0o7777 : 0o644;
      const tmp = `.slipway-upload-${randomBytes(8).toString('hex')}.part`;
      const file = await open(at(r.dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600).catch(fsError);
      let renamed = false;
      try {
        await chownIfNeeded(file, owner);
        const received = await receiveInto(file, messages, { maxBytes: this.o.maxFileBytes, tooLarge: `A file upload is limited to ${this.o.maxFileBytes} bytes` });
        await file.chmod(mode);
        await file.sync();
        await this.assertInside(root, r.dir);
        await rename(at(r.dir, tmp), at(r.dir, r.name)).catch(fsError);
        renamed = true;
        await r.dir.sync().catch(() => undefined);
        return { size: received };
      } catch (e) {
        // The folder is its own file system of the app's disk size: full means the app's limit, not the server's.
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC' || code === 'EDQUOT') throw new AppError('disk_quota_exceeded', "The file does not fit: the app's project folder has reached its disk limit (the old file is kept)");
        throw e;
      } finally {
        await file.close().catch(() => undefined);
        if (!renamed) await unlink(at(r.dir, tmp)).catch(() => undefined);
      }
    });
  }

  /** Moves `from` (a final symlink itself, not its target) to `to`, which must not exist; creates `to`'s parents. */
  async rename(appId: string, from: string[], to: string[]): Promise<void> {
    await this.withRoot(appId, async (root, handles) => {
      const src = await this.resolve(root, from, { followLast: false, create: null }, handles);
      if (src.name === null) throw new AppError('invalid_path', 'The project folder itself cannot be moved');
      if (!src.stat) throw notFound();
      const dst = await this.resolve(root, to, { followLast: false, create: await ownerOf(root) }, handles);
      if (dst.name === null) throw destinationExists();
      if (dst.stat) throw destinationExists();
      await this.assertInside(root, src.dir);
      await this.assertInside(root, dst.dir);
      await rename(at(src.dir, src.name), at(dst.dir, dst.name)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'EINVAL') throw new AppError('invalid_path', 'A folder cannot be moved into itself');
        if (e.code === 'ENOTEMPTY' || e.code === 'EEXIST') throw destinationExists();
        fsError(e);
      });
    });
  }

  /** Deletes a file or symlink, or a folder: an empty one, or any with `recursive` (never following a link). */
  async delete(appId: string, segments: string[], recursive: boolean): Promise<void> {
    await this.withRoot(appId, async (root, handles) => {
      const r = await this.resolve(root, segments, { followLast: false, create: null }, handles);
      if (r.name === null) throw new AppError('invalid_path', 'The project folder itself cannot be deleted');
      if (!r.stat) throw notFound();
      await this.assertInside(root, r.dir);
      if (!r.stat.isDirectory()) {
        await unlink(at(r.dir, r.name)).catch(fsError);
        return;
      }
      if (recursive) await removeTree(r.dir, r.name);
      else {
        await rmdir(at(r.dir, r.name)).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOTEMPTY' || e.code === 'EEXIST') throw new AppError('folder_not_empty', 'The folder is not empty: delete it with recursive=true');
          fsError(e);
        });
      }
    });
  }

  private async withRoot<T>(appId: string, fn: (root: FileHandle, handles: Handles) => Promise<T>): Promise<T> {
    const handles = new Handles();
    try {
      const root = handles.add(await this.openRoot(appId, true));
      return await fn(root, handles);
    } finally {
      await handles.closeAll();
    }
  }

  /** The app's folder, made when missing (an app that never had files yet lists as empty). */
  private async openRoot(appId: string, create: boolean): Promise<FileHandle> {
    if (!APP_ID.test(appId)) throw new AppError('validation_failed', 'The app id is not a canonical UUID');
    const dir = path.join(this.o.volumesDir, appId);
    await this.o.ready?.(appId);
    if (create) await mkdir(dir, { recursive: true, mode: 0o755 });
    const root = await open(dir, DIR_FLAGS).catch((e: NodeJS.ErrnoException) => {
      // volumes/<appId> itself being a symlink is not something the app can do; refuse it all the same.
      if (e.code === 'ELOOP' || e.code === 'ENOTDIR') throw new AppError('internal', "The app's project folder is not a folder");
      throw e;
    });
    this.volumesReal ??= await realpath(this.o.volumesDir);
    const real = await realpath(fdPath(root.fd));
    if (real !== path.join(this.volumesReal, appId)) {
      await root.close();
      throw new AppError('internal', "The app's project folder is not where it should be");
    }
    return root;
  }

  /**
   * Walks `segments` from the root one directory fd at a time. A symlink met on the way (and at the end with
   * followLast) is replaced by its target's segments, computed from where the link lies and checked to stay
   * inside; the walk then starts again from the root. With `create`, missing folders on the way are made and
   * given that owner.
   */
  private async resolve(root: FileHandle, segments: string[], o: { followLast: boolean; create: Owner | null }, handles: Handles): Promise<Resolved> {
    let pending = [...segments];
    let dir = root;
    let where: string[] = [];
    let hops = 0;
    while (pending.length > 0) {
      const name = pending.shift()!;
      const last = pending.length === 0;
      let st: Stats | null = await lstat(at(dir, name)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        return fsError(e);
      });
      if (st?.isSymbolicLink() && (!last || o.followLast)) {
        if (++hops > MAX_LINK_HOPS) throw new AppError('invalid_path', 'The path goes through too many symlinks');
        const target = await readlink(at(dir, name)).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'EINVAL') return null; // no longer a link (swapped meanwhile): look at the name again
          return fsError(e);
        });
        if (target === null) {
          pending.unshift(name);
          continue;
        }
        pending = [...insideTarget(where, target), ...pending];
        dir = root;
        where = [];
        continue;
      }
      if (last) return { dir, name, stat: st };
      if (!st) {
        if (!o.create) throw notFound();
        await mkdir(at(dir, name), { mode: 0o755 }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') fsError(e);
        });
        st = await lstat(at(dir, name)).catch(fsError);
        if (st.isDirectory()) {
          const made = handles.add(await open(at(dir, name), DIR_FLAGS).catch(fsError));
          await chownIfNeeded(made, o.create);
          dir = made;
          where.push(name);
          continue;
        }
        if (st.isSymbolicLink()) {
          pending.unshift(name); // swapped in meanwhile: go round again, checking it like any link
          continue;
        }
      }
      if (!st.isDirectory()) throw new AppError('not_a_folder', `A segment of the path is a file, not a folder`);
      dir = handles.add(await open(at(dir, name), DIR_FLAGS).catch(fsError));
      where.push(name);
    }
    // Every segment was used up by links that led back to a folder: the target is that folder itself.
    return { dir, name: null, stat: null };
  }

  private async openDir(r: Resolved, handles: Handles): Promise<FileHandle> {
    if (!r.stat) throw notFound();
    if (!r.stat.isDirectory()) throw new AppError('not_a_folder', 'The path names a file, not a folder');
    return handles.add(await open(at(r.dir, r.name!), DIR_FLAGS).catch(fsError));
  }

  /** The opened file or folder is the folder or inside it, by its real path as the kernel knows it now. */
  private async assertInside(root: FileHandle, h: FileHandle): Promise<void> {
    // ENOENT: the folder was removed meanwhile (its fd names a deleted directory).
    const rootReal = await realpath(fdPath(root.fd)).catch(fsError);
    const real = await realpath(fdPath(h.fd)).catch(fsError);
    if (real !== rootReal && !real.startsWith(`${rootReal}/`)) {
      this.o.logger.warn({ root: rootReal }, 'a file operation reached outside the project folder and was refused');
      throw outside();
    }
  }
}

/**
 * The segments a symlink's target names inside the folder, given the segments of the folder holding the link.
 * Absolute targets and targets that climb above the folder are refused.
 */
export function insideTarget(linkDir: string[], target: string): string[] {
  if (target.startsWith('/')) throw outside();
  const out = [...linkDir];
  for (const s of target.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (out.length === 0) throw outside();
      out.pop();
    } else out.push(s);
  }
  return out;
}

/** Deletes a folder and everything in it through directory fds; links are removed, never followed. */
async function removeTree(parent: FileHandle, name: string): Promise<void> {
  const dir = await open(at(parent, name), DIR_FLAGS).catch(fsError);
  try {
    for (const child of await readdir(fdPath(dir.fd))) {
      const st = await lstat(at(dir, child)).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) await removeTree(dir, child);
      else await unlink(at(dir, child)).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : fsError(e)));
    }
  } finally {
    await dir.close();
  }
  await rmdir(at(parent, name)).catch(fsError);
}

async function ownerOf(root: FileHandle): Promise<Owner> {
  const st = await root.stat();
  return { uid: st.uid, gid: st.gid };
}

/** Files and folders made here belong to whoever owns the folder root: the user the app's container runs as. */
async function chownIfNeeded(h: FileHandle, owner: Owner): Promise<void> {
  const st = await h.stat();
  if (st.uid !== owner.uid || st.gid !== owner.gid) await h.chown(owner.uid, owner.gid);
}

function typeOf(st: Stats): EntryType {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

const modeOf = (st: Stats) => (st.mode & 0o7777).toString(8).padStart(4, '0');

const notFound = () => new AppError('not_found', 'No such file or folder in the project folder');
const notAFile = () => new AppError('not_a_file', 'The path names a folder, not a file');
const destinationExists = () => new AppError('destination_exists', 'The destination already exists');
const outside = () => new AppError('invalid_path', 'The path leads outside the project folder (through a symlink)');

/** File-system errors as AppErrors, without the server's paths; anything unexpected stays an Error (logged). */
function fsError(e: NodeJS.ErrnoException): never {
  switch (e.code) {
    case 'ENOENT':
      throw notFound();
    case 'ENOTDIR':
      throw new AppError('not_a_folder', 'A segment of the path is not a folder');
    case 'ELOOP':
      // O_NOFOLLOW met a symlink that was not there at the check: one swapped in meanwhile.
      throw outside();
    case 'ENAMETOOLONG':
      throw new AppError('invalid_path', 'The path is too long for the file system');
    case 'EISDIR':
      throw notAFile();
    case 'EEXIST':
      throw destinationExists();
    default:
      throw e;
  }
}
