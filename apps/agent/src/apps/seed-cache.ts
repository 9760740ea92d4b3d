import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Archives larger than this are not kept (a big mount path is read from its image each time, as before). */
export const SEED_CACHE_MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;
/** All archives together; the least recently used go first. */
export const SEED_CACHE_MAX_BYTES = 512 * 1024 * 1024;

/**
 * The content of an image's mount path, as the tar the engine gave for it, kept per image id under
 * `<dataDir>/seed-cache` (0700, files 0600): the next project folder seeded from that image (a rollback, another
 * deployment of the same image, another app of it) is unpacked from the file instead of a throw-away container of
 * the image read through the engine. An image's files never change under its id, so an entry is never stale; the
 * cache is bounded (archive size, total size, least recently used out first) and anything missing is read again.
 */
export class SeedCache {
  constructor(
    private readonly dir: string,
    private readonly limits = { archiveBytes: SEED_CACHE_MAX_ARCHIVE_BYTES, totalBytes: SEED_CACHE_MAX_BYTES },
  ) {}

  private fileOf(imageId: string, mountPath: string): string {
    return path.join(this.dir, `${imageId.replace(/^sha256:/, '')}-${Buffer.from(mountPath).toString('base64url')}.tar`);
  }

  /** The kept archive of the image's mount path (its use recorded), or null. */
  async get(imageId: string, mountPath: string): Promise<string | null> {
    const file = this.fileOf(imageId, mountPath);
    const now = new Date();
    return utimes(file, now, now).then(
      () => file,
      () => null,
    );
  }

  /**
   * Runs `unpack` on the image's archive while a copy is written to the cache; the copy is kept when `unpack`
   * succeeded and the archive was within the size bound, and older entries go past the total bound.
   */
  async fill(imageId: string, mountPath: string, archive: Readable, unpack: (archive: Readable) => Promise<void>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(imageId, mountPath);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    const out = createWriteStream(tmp, { mode: 0o600 });
    const written = finished(out).then(
      () => true,
      () => false,
    );
    let bytes = 0;
    const drop = () => {
      archive.unpipe(out);
      out.destroy();
    };
    archive.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > this.limits.archiveBytes && !out.destroyed) drop();
    });
    archive.pipe(out);
    try {
      await unpack(archive);
    } catch (e) {
      drop();
      await written;
      await rm(tmp, { force: true });
      throw e;
    }
    if ((await written) && bytes <= this.limits.archiveBytes) {
      await rename(tmp, file);
      await this.trim();
    } else {
      await rm(tmp, { force: true });
    }
  }

  /** Removes the least recently used archives past the total bound (and copies a crash left half written). */
  async trim(): Promise<void> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const files = await Promise.all(names.map(async (n) => ({ file: path.join(this.dir, n), st: await stat(path.join(this.dir, n)).catch(() => null) })));
    const kept = files.filter((f) => f.st && f.file.endsWith('.tar')).sort((a, b) => b.st!.mtimeMs - a.st!.mtimeMs);
    let total = 0;
    for (const f of kept) {
      total += f.st!.size;
      if (total > this.limits.totalBytes) await rm(f.file, { force: true });
    }
    // A partial copy older than a minute belongs to no seeding in progress.
    for (const f of files) if (f.st && f.file.endsWith('.tmp') && Date.now() - f.st.mtimeMs > 60_000) await rm(f.file, { force: true });
  }
}
