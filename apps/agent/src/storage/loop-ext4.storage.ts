// Project folders as one sparse ext4 image per app, loop-mounted on `volumes/<appId>`. The kernel stops a write past
// the size with ENOSPC in that file system only; nothing scans. The choice, its figures and its costs (a loop device,
// a journal thread and ~0.4 MB of kernel memory per app; ~0.1–0.3 s to make one):
// docs/decisions/0009-project-folders-on-loop-ext4-images.md.
//
// On disk, under `storageDir/images/`: `<appId>.ext4` (the image, sparse: it takes what the app wrote, not its
// size) and `<appId>.json` (the size asked for). Both are the truth at start: every image is mounted again.
// A folder is made in `<appId>.ext4.part`, sized and checked on `storageDir/staging/<appId>`, recorded, then
// renamed: a crash half-way leaves a `.part` (removed at start) and never a folder of the wrong size.
// The mount points are made immutable (chattr +i) while nothing is mounted on them, so a container that Docker
// starts before the agent has mounted its folder can write nothing to the server's own disk there.
import { constants as C } from 'node:fs';
import { mkdir, open, readdir, readFile, realpath, rename, rm, rmdir, stat, statfs, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError, type Logger } from '@slipway/core';
import { findMount, mbToBytes, mountTable, toMbCeil, type Mount } from './mountinfo';
import { CommandError, run } from './run';
import { APP_ID, MAX_LIMIT_MB, MIN_LIMIT_MB, type FolderUsage, type ProjectStorage, type ServerDisk } from './storage';

export interface LoopExt4StorageOptions {
  /** `<data dir>/volumes`: the mount points, one per app (what the containers and the Files service see). */
  volumesDir: string;
  /** `<data dir>/storage`: images, their records, the staging mount points. */
  storageDir: string;
  logger: Logger;
  /** Folders mounted at once at start; default 8. */
  startConcurrency?: number;
}

export interface StartOptions {
  /** Apps whose folders are mounted first, in this order (those that run); the other folders follow. */
  first?: readonly string[];
  /** Each folder this start mounted (it was not mounted), with the time its mount was done. */
  onMounted?: (appId: string, atMs: number) => void;
}

interface FolderRecord {
  limitMb: number;
}

const MB = 1024 * 1024;
const MOUNT_OPTIONS = 'loop,noatime,nosuid,nodev';
/** statfs(2)'s f_type of ext4 (EXT4_SUPER_MAGIC). */
const EXT4_MAGIC = 0xef53;

const isErrno = (err: unknown, code: string) => (err as NodeJS.ErrnoException | undefined)?.code === code;

export class LoopExt4Storage implements ProjectStorage {
  private readonly imagesDir: string;
  private readonly stagingDir: string;
  private readonly orphansDir: string;
  private readonly locks = new Map<string, Promise<unknown>>();
  /** e2fsprogs < 1.47 has no `assume_storage_prezeroed`; then ext4 zeroes the inode tables after mounting. */
  private prezeroed = true;
  /** Whether a mounted folder can grow (CAP_SYS_RESOURCE); known at start. */
  private online = false;
  /** Folders the start has yet to mount, each with its mount (`done` once begun, by the start's turn or by `ready`). */
  private readonly unmounted = new Map<string, { mount: () => Promise<void>; done?: Promise<void> }>();
  /** The start's mounting, until every folder is mounted. */
  private mounting: Promise<unknown> = Promise.resolve();
  /** limitsMb(): the folders' sizes from their records, read once. */
  private limits: Promise<Map<string, number>> | null = null;

  constructor(private readonly o: LoopExt4StorageOptions) {
    this.imagesDir = path.join(o.storageDir, 'images');
    this.stagingDir = path.join(o.storageDir, 'staging');
    this.orphansDir = path.join(o.storageDir, 'orphans');
  }

  /** Housekeeping, then every folder mounted again (`first` first); resolves once all are (see `begin`). */
  async start(o: StartOptions = {}): Promise<void> {
    await (await this.begin(o)).mounted;
  }

  /**
   * What an agent start does (issue 34: 2,000 folders served within a minute of a reboot): the housekeeping of a
   * create that stopped half-way, then every folder that is not mounted is mounted again, `first` first (the apps
   * that run), `startConcurrency` at once, in the background: this answers once the mounting has begun, and every
   * call on a folder not mounted yet (`ready`, create, resize, usage) mounts it out of turn and waits for it.
   * `onMounted` hears of each folder this start mounted, with the time its mount was done.
   */
  async begin(o: StartOptions = {}): Promise<{ folders: number; mounted: Promise<{ mounted: number; failed: number }> }> {
    if (process.getuid?.() !== 0) throw new AppError('internal', 'The storage layer needs root: it loop-mounts one ext4 image per app');
    await this.checkTools();
    this.online = await hasCapability(CAP_SYS_RESOURCE);
    for (const dir of [this.imagesDir, this.stagingDir, this.o.volumesDir]) await mkdir(dir, { recursive: true, mode: 0o755 });
    const mounts = await readMountinfo();
    // A create that stopped half-way: its staging mount and its .part image.
    for (const name of await readdir(this.stagingDir)) {
      const point = path.join(this.stagingDir, name);
      if (findMount(mounts, point)) await run(['umount', point]);
      await rmdir(point).catch(() => undefined);
    }
    const names = await readdir(this.imagesDir);
    for (const name of names.filter((n) => n.endsWith('.part'))) await rm(path.join(this.imagesDir, name), { force: true });
    const ids = new Set(names.filter((n) => n.endsWith('.ext4')).map((n) => n.slice(0, -'.ext4'.length)).filter((id) => APP_ID.test(id)));
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const id = name.slice(0, -'.json'.length);
      if (!ids.has(id)) await rm(path.join(this.imagesDir, name), { force: true }); // recorded, never renamed
    }
    // One look at the mount table and the loop devices for all folders (each of them a scan of thousands of lines or
    // devices when made per folder: the cost that made 2,000 folders take minutes).
    const table = mountTable(mounts);
    const todo: string[] = [];
    for (const id of new Set([...(o.first ?? []).filter((id) => ids.has(id)), ...ids])) {
      // The mount table by path, and the device of the point itself (a data directory reached through a symlink).
      if (!table.has(this.mountPoint(id)) && !this.unmounted.has(id) && !(await this.isMountPoint(this.mountPoint(id)))) todo.push(id);
    }
    const attached = todo.length ? await attachedImages(await realpath(this.imagesDir)) : new Map<string, string>();
    // The bare mount points, immutable before anything is mounted on them: one chattr for many.
    for (const id of todo) {
      await mkdir(this.mountPoint(id), { recursive: true, mode: 0o755 });
      await this.clearLegacy(this.mountPoint(id), table);
    }
    let failed = 0;
    const refused = new Set<string>();
    for (let i = 0; i < todo.length; i += 256) {
      const batch = todo.slice(i, i + 256);
      await run(['chattr', '+i', '--', ...batch.map((id) => this.mountPoint(id))]).catch(async () => {
        // One that cannot be made immutable is not mounted (a container could write under it): found one by one.
        for (const id of batch) {
          await run(['chattr', '+i', '--', this.mountPoint(id)]).catch((err: unknown) => {
            failed += 1;
            refused.add(id);
            this.o.logger.error({ err, appId: id }, 'project folder could not be mounted: its mount point cannot be made immutable');
          });
        }
      });
    }
    let mounted = 0;
    const queue = todo.filter((id) => !refused.has(id));
    for (const id of queue) {
      this.unmounted.set(id, {
        mount: () =>
          this.lock(id, async () => {
            if (await this.mountAgain(id, attached.get(`${id}.ext4`))) {
              mounted += 1;
              o.onMounted?.(id, Date.now());
            }
          })
            .catch((err: unknown) => {
              failed += 1;
              this.o.logger.error({ err, appId: id }, 'project folder could not be mounted');
            })
            .finally(() => this.unmounted.delete(id)),
      });
    }
    const started = Date.now();
    const all = forEachLimit(queue, this.o.startConcurrency ?? 8, (id) => this.ready(id)).then(() => {
      this.o.logger.info({ folders: ids.size, mounted, failed, ms: Date.now() - started }, 'project folders mounted');
      return { mounted, failed };
    });
    this.mounting = all;
    return { folders: ids.size, mounted: all };
  }

  /**
   * Resolves once the app's folder is mounted, when this server has it: a folder the start has not mounted yet is
   * mounted now, out of turn (the Files service, a move and a rollout never see the bare mount point of a folder that exists).
   */
  ready(appId: string): Promise<void> {
    const pending = this.unmounted.get(appId);
    if (!pending) return Promise.resolve();
    pending.done ??= pending.mount();
    return pending.done;
  }

  /** Resolves once the start has mounted every folder (an agent stopping waits for it: a next start must not mount one twice). */
  async allMounted(): Promise<void> {
    await this.mounting;
  }

  async create(appId: string, limitMb: number): Promise<FolderUsage> {
    checkArgs(appId, limitMb);
    await this.ready(appId);
    return this.lock(appId, async () => {
      const record = await this.readRecord(appId);
      if (record && (await exists(this.imagePath(appId)))) {
        await this.ensureMounted(appId);
        if (limitMb < record.limitMb) throw shrinkRefused(record.limitMb, limitMb);
        if (limitMb > record.limitMb) await this.grow(appId, limitMb);
      } else {
        await this.make(appId, limitMb);
      }
      return (await this.usageOf(appId))!;
    });
  }

  async resize(appId: string, limitMb: number): Promise<FolderUsage> {
    checkArgs(appId, limitMb);
    await this.ready(appId);
    return this.lock(appId, async () => {
      const record = await this.readRecord(appId);
      if (!record || !(await exists(this.imagePath(appId)))) throw new AppError('not_found', 'The app has no project folder on this server');
      await this.ensureMounted(appId);
      if (limitMb < record.limitMb) throw shrinkRefused(record.limitMb, limitMb);
      if (limitMb > record.limitMb) await this.grow(appId, limitMb);
      return (await this.usageOf(appId))!;
    });
  }

  async usage(appId: string): Promise<FolderUsage | null> {
    if (!APP_ID.test(appId)) return null;
    await this.ready(appId);
    return this.usageOf(appId);
  }

  async usageAll(): Promise<Map<string, FolderUsage>> {
    const table = mountTable(await readMountinfo());
    const out = new Map<string, FolderUsage>();
    for (const name of await readdir(this.imagesDir).catch(() => [] as string[])) {
      if (!name.endsWith('.ext4')) continue;
      const id = name.slice(0, -'.ext4'.length);
      const u = APP_ID.test(id) ? await this.usageOf(id, table) : null;
      if (u) out.set(id, u);
    }
    return out;
  }

  remove(appId: string): Promise<void> {
    if (!APP_ID.test(appId)) return Promise.reject(new AppError('invalid_path', 'Not an app id'));
    // Not mounted yet by the start: no need to, it goes (a mount already begun is waited for by the lock).
    if (!this.unmounted.get(appId)?.done) this.unmounted.delete(appId);
    return this.lock(appId, async () => {
      const point = this.mountPoint(appId);
      await this.unmount(point);
      await run(['chattr', '-i', point]).catch(() => undefined); // absent, or not immutable
      await rm(point, { recursive: true, force: true });
      // Unlinked while a container that still holds the folder runs: the kernel frees the blocks when it exits.
      await rm(this.imagePath(appId), { force: true });
      await rm(`${this.imagePath(appId)}.part`, { force: true });
      await rm(this.recordPath(appId), { force: true });
      await this.limits?.then((m) => m.delete(appId), () => undefined);
      this.o.logger.info({ appId }, 'project folder removed');
    });
  }

  /** Whether folders grow while mounted and in use (the agent has CAP_SYS_RESOURCE); else resize needs the app stopped. */
  get growsInPlace(): boolean {
    return this.online;
  }

  async serverFree(): Promise<Pick<ServerDisk, 'totalMb' | 'freeMb'>> {
    const fs = await statfs(this.o.storageDir);
    return { totalMb: Math.floor((fs.blocks * fs.bsize) / MB), freeMb: Math.floor((fs.bavail * fs.bsize) / MB) };
  }

  async serverDisk(): Promise<ServerDisk> {
    const fs = await statfs(this.o.storageDir);
    const limits = await this.limitsMb();
    let allocatedMb = 0;
    for (const mb of limits.values()) allocatedMb += mb;
    return { totalMb: Math.floor((fs.blocks * fs.bsize) / MB), freeMb: Math.floor((fs.bavail * fs.bsize) / MB), allocatedMb, folders: limits.size };
  }

  /**
   * Each folder's size as its record says, read from the records once and kept with every record written or removed
   * after: serverDisk runs with every health report, and read 1,000 files each time at 1,000 apps.
   */
  private limitsMb(): Promise<Map<string, number>> {
    return (this.limits ??= (async () => {
      const limits = new Map<string, number>();
      for (const name of await readdir(this.imagesDir).catch(() => [] as string[])) {
        if (!name.endsWith('.json')) continue;
        const id = name.slice(0, -'.json'.length);
        const record = await this.readRecord(id);
        if (record) limits.set(id, record.limitMb);
      }
      return limits;
    })().catch((e: unknown) => {
      this.limits = null; // read again at the next call
      throw e;
    }));
  }

  private async writeRecord(id: string, limitMb: number): Promise<void> {
    await writeJsonAtomic(this.recordPath(id), { limitMb } satisfies FolderRecord);
    await this.limits?.then((m) => m.set(id, limitMb), () => undefined);
  }

  /** Unmounts every folder (nothing deleted): for tests and for an operator taking the server down. */
  async unmountAll(): Promise<void> {
    await this.mounting;
    for (const name of await readdir(this.imagesDir).catch(() => [] as string[])) {
      if (!name.endsWith('.ext4')) continue;
      const id = name.slice(0, -'.ext4'.length);
      await this.lock(id, () => this.unmount(this.mountPoint(id)));
    }
  }

  /**
   * Unmounts every folder and makes the bare mount points removable again, deleting nothing: for tests, whose
   * data directory is removed afterwards (an agent stopping in production leaves its apps' folders mounted).
   */
  async teardown(): Promise<void> {
    await this.unmountAll();
    for (const name of await readdir(this.o.volumesDir).catch(() => [] as string[])) {
      if (APP_ID.test(name)) await run(['chattr', '-i', path.join(this.o.volumesDir, name)]).catch(() => undefined);
    }
  }

  private imagePath = (id: string) => path.join(this.imagesDir, `${id}.ext4`);
  private recordPath = (id: string) => path.join(this.imagesDir, `${id}.json`);
  private mountPoint = (id: string) => path.join(this.o.volumesDir, id);

  private async usageOf(id: string, table?: Map<string, Mount>): Promise<FolderUsage | null> {
    const record = await this.readRecord(id);
    if (!record) return null;
    const point = this.mountPoint(id);
    if (!(table ? table.has(point) : await this.isMountPoint(point))) return null;
    const room = await roomOf(point, (await stat(this.imagePath(id))).size);
    // The image is sized so that its room equals the limit when empty: what is missing is what the app took.
    return { limitMb: record.limitMb, usedMb: Math.max(0, toMbCeil(mbToBytes(record.limitMb) - room)) };
  }

  private async make(id: string, limitMb: number): Promise<void> {
    const image = this.imagePath(id);
    const part = `${image}.part`;
    const point = this.mountPoint(id);
    await rm(part, { force: true });
    await (await open(part, C.O_WRONLY | C.O_CREAT | C.O_EXCL, 0o600)).close();
    try {
      // Sized before it is ever mounted: made again at a corrected size until its room is the limit (mkfs of a
      // sparse file takes tens of ms; the image is emptied first, as assume_storage_prezeroed requires).
      await fit(
        limitMb,
        0,
        async () => roomOffline(part),
        async (bytes) => {
          await truncate(part, 0);
          await truncate(part, bytes);
          await this.mkfs(part, limitMb);
        },
        null,
      );
      // A folder that existed before this layer (a plain directory): its files move into the new file system.
      if ((await readdir(point).catch(() => [] as string[])).length > 0) await this.copyLegacy(point, part, id, limitMb);
      await this.writeRecord(id, limitMb);
      await rename(part, image);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
    await this.clearLegacy(point);
    await this.ensureMounted(id);
    this.o.logger.info({ appId: id, limitMb }, 'project folder made');
  }

  private async copyLegacy(point: string, part: string, id: string, limitMb: number): Promise<void> {
    const staging = path.join(this.stagingDir, id);
    await mkdir(staging, { recursive: true });
    await run(['mount', '-t', 'ext4', '-o', MOUNT_OPTIONS, part, staging]);
    try {
      await run(['cp', '-a', '--', `${point}/.`, staging], 30 * 60_000);
    } catch (err) {
      if (err instanceof CommandError && /No space left/.test(err.stderr)) {
        throw new AppError('payload_too_large', `The app's existing files do not fit in ${limitMb} MB`);
      }
      throw err;
    } finally {
      await run(['umount', staging]);
      await rmdir(staging).catch(() => undefined);
    }
    // A container started meanwhile got a copy of every mount of the server (until it pivots into its own root):
    // the image is mounted again only once that copy is gone, never twice at once.
    if (!(await detached(part))) throw new AppError('internal', 'The new project folder is still held by another mount namespace; try again');
  }

  private async grow(id: string, limitMb: number): Promise<void> {
    const record = await this.readRecord(id);
    const point = this.mountPoint(id);
    const image = this.imagePath(id);
    const room = await roomOf(point, (await stat(image)).size);
    const used = record ? Math.max(0, mbToBytes(record.limitMb) - room) : 0;
    if (this.online) {
      await fit(limitMb, used, async () => roomOf(point, (await stat(image)).size), (bytes) => this.growOnline(point, image, bytes), (await stat(image)).size);
    } else {
      await this.growOffline(point, image, limitMb, used);
    }
    await this.writeRecord(id, limitMb);
    this.o.logger.info({ appId: id, limitMb, online: this.online }, 'project folder grown');
  }

  /** The app keeps running: losetup -c tells the loop device its new size, resize2fs grows the mounted file system. */
  private async growOnline(point: string, image: string, bytes: number): Promise<void> {
    if (bytes <= (await stat(image)).size) return; // never below a mounted file system
    await truncate(image, bytes);
    const dev = (await this.mountOf(point)).source;
    await run(['losetup', '-c', dev]);
    await run(['resize2fs', dev], 10 * 60_000);
    // The kernel sizes its delayed-allocation reserve at mount time only: set it as a new mount would, so the room
    // measured now is the room after the next mount too.
    const sysfs = `/sys/fs/ext4/${path.basename(dev)}/reserved_clusters`;
    await writeFile(sysfs, String(reservedBytes(bytes) / 4096)).catch((err: unknown) => this.o.logger.warn({ err, sysfs }, 'reserve not updated'));
  }

  /**
   * Without CAP_SYS_RESOURCE the kernel refuses to grow a mounted ext4 (EXT4_IOC_RESIZE_FS): the file system is
   * unmounted, grown and mounted again. Only when nothing else holds it, which the loop device going away proves
   * (it detaches itself when the last mount of it ends, here or in a container's namespace); else FolderBusyError
   * and the caller stops the app first.
   */
  private async growOffline(point: string, image: string, limitMb: number, used: number): Promise<void> {
    try {
      await run(['umount', point]);
    } catch (err) {
      if (err instanceof CommandError && /busy/i.test(err.stderr)) throw new FolderBusyError(point);
      throw err;
    }
    try {
      if (!(await detached(image))) throw new FolderBusyError(point);
      await run(['e2fsck', '-f', '-p', image], 10 * 60_000).catch((err: unknown) => {
        // 1: errors corrected, 2: corrected, reboot advised (not for an unmounted image): both leave it clean.
        if (!(err instanceof CommandError && (err.exitCode === 1 || err.exitCode === 2))) throw err;
      });
      const size = (await stat(image)).size;
      await fit(
        limitMb,
        used,
        () => roomOffline(image),
        async (bytes) => {
          if (bytes <= (await stat(image)).size) return; // only grows: an overshoot stays
          await truncate(image, bytes);
          await run(['resize2fs', image], 10 * 60_000);
        },
        size,
      );
    } finally {
      await mountImage(image, point);
    }
  }

  private async mkfs(image: string, limitMb: number): Promise<void> {
    // 4 KiB blocks and an inode per 8 KiB whatever the size (mke2fs would pick 1 KiB blocks under 512 MB); a journal
    // of 1/64 of the size within 4–64 MB; no blocks kept for root (-m 0): the app's size is all the app's.
    const journalMb = Math.min(64, Math.max(4, Math.floor(limitMb / 64)));
    const base = ['mkfs.ext4', '-q', '-F', '-b', '4096', '-i', '8192', '-m', '0', '-J', `size=${journalMb}`, '-L', 'slipway-app'];
    if (this.prezeroed) {
      try {
        // The image is a sparse file, so zeros already: nothing to write at mkfs time or later (ext4lazyinit).
        await run([...base, '-E', 'nodiscard,assume_storage_prezeroed=1', image]);
        return;
      } catch (err) {
        if (!(err instanceof CommandError) || !/assume_storage_prezeroed|Bad option/i.test(err.stderr)) throw err;
        this.prezeroed = false;
      }
    }
    await run([...base, '-E', 'nodiscard', image]);
  }

  private async ensureMounted(id: string): Promise<void> {
    const point = this.mountPoint(id);
    if (await this.isMountPoint(point)) {
      const { type } = await statfs(point);
      if (type !== EXT4_MAGIC) throw new AppError('internal', `${point} is a mount of another file system (0x${type.toString(16)}), not the app's image`);
      return;
    }
    await mkdir(point, { recursive: true, mode: 0o755 });
    await this.clearLegacy(point);
    await run(['chattr', '+i', point]);
    await mountImage(this.imagePath(id), point);
  }

  /**
   * The start's mount of one folder whose bare mount point is made and immutable: one `mount`, through the loop device
   * the image is still attached to when the start saw one (else a new one). True when it mounted it now.
   */
  private async mountAgain(id: string, device: string | undefined): Promise<boolean> {
    const point = this.mountPoint(id);
    if (await this.isMountPoint(point)) return false; // mounted meanwhile
    if (!device) {
      await run(['mount', '-t', 'ext4', '-o', MOUNT_OPTIONS, this.imagePath(id), point]);
      return true;
    }
    // The device may have let go of the image since the start looked (its last holder ended): then as any mount.
    await run(['mount', '-t', 'ext4', '-o', MOUNT_OPTIONS.replace('loop,', ''), device, point]).catch(() => mountImage(this.imagePath(id), point));
    return true;
  }

  /** Files under an unmounted mount point would be hidden by the mount: they are moved aside, never deleted. */
  private async clearLegacy(point: string, table?: Map<string, Mount>): Promise<void> {
    const entries = await readdir(point).catch(() => [] as string[]);
    if (entries.length === 0) return;
    if (table ? table.has(point) : await this.isMountPoint(point)) return;
    await run(['chattr', '-i', point]).catch(() => undefined);
    await mkdir(this.orphansDir, { recursive: true, mode: 0o700 });
    const aside = path.join(this.orphansDir, `${path.basename(point)}-${Date.now()}`);
    await rename(point, aside);
    await mkdir(point, { mode: 0o755 });
    this.o.logger.warn({ point, aside }, 'files under an unmounted project folder moved aside');
  }

  private async unmount(point: string): Promise<void> {
    if (!(await this.isMountPoint(point))) return;
    try {
      await run(['umount', point]);
    } catch (err) {
      // Busy (a process of the agent's own has a file open): detach now, the kernel finishes when it is closed.
      if (!(err instanceof CommandError) || !/busy/i.test(err.stderr)) throw err;
      await run(['umount', '-l', point]);
    }
  }

  /**
   * Whether a file system is mounted on the folder's mount point: it is then another device than the volumes folder
   * (two stats, where the mount table is thousands of lines with thousands of folders, read and parsed at each
   * deployment: ~2 MB of garbage per deployment at 300 folders, the agent's largest). False when it does not exist.
   */
  private async isMountPoint(point: string): Promise<boolean> {
    const [at, parent] = await Promise.all([stat(point).catch(() => null), stat(this.o.volumesDir)]);
    return at !== null && at.dev !== parent.dev;
  }

  private async mountOf(point: string): Promise<Mount> {
    const m = findMount(await readMountinfo(), point);
    if (!m || !m.source.startsWith('/dev/loop')) throw new AppError('internal', `${point} is not loop-mounted`);
    return m;
  }

  private async readRecord(id: string): Promise<FolderRecord | null> {
    try {
      const r = JSON.parse(await readFile(this.recordPath(id), 'utf8')) as Partial<FolderRecord>;
      return typeof r.limitMb === 'number' ? { limitMb: r.limitMb } : null;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
  }

  private async checkTools(): Promise<void> {
    for (const argv of [['mkfs.ext4', '-V'], ['resize2fs'], ['losetup', '--version'], ['chattr', '-V']]) {
      try {
        await run(argv);
      } catch (err) {
        // resize2fs without arguments prints its usage and exits 1: present.
        if (err instanceof CommandError && typeof err.exitCode === 'number') continue;
        throw new AppError('internal', `${argv[0]} is missing: install e2fsprogs and util-linux`);
      }
    }
  }

  /** One operation at a time per app, in call order. */
  private lock<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(id, tail);
    void tail.then(() => {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    });
    return next;
  }
}

function checkArgs(appId: string, limitMb: number): void {
  if (!APP_ID.test(appId)) throw new AppError('invalid_path', 'Not an app id');
  if (!Number.isInteger(limitMb) || limitMb < MIN_LIMIT_MB || limitMb > MAX_LIMIT_MB) {
    throw new AppError('validation_failed', `A project folder's size is a whole number of MB from ${MIN_LIMIT_MB} to ${MAX_LIMIT_MB}`);
  }
}

const shrinkRefused = (current: number, asked: number) =>
  new AppError('validation_failed', `A project folder only grows: it has ${current} MB, ${asked} MB was asked`);

/** A folder that cannot grow now: mounted in a container (or open here) while the kernel refuses an online grow. */
export class FolderBusyError extends Error {
  constructor(readonly point: string) {
    super(`The project folder is in use and this server cannot grow it in place (no CAP_SYS_RESOURCE): stop the app first`);
  }
}

const CAP_SYS_RESOURCE = 24;

/** ext4's delayed-allocation reserve for a file system of `bytes`: 2 % of its blocks or 4096, the smaller. */
const reservedBytes = (bytes: number) => Math.min(Math.floor(Math.floor(bytes / 4096) / 50), 4096) * 4096;

/**
 * Sizes an image so that its room (free space less ext4's reserve, plus `used`, what the app's files take) is
 * `limitMb`, just above: ext4 keeps part of a file system for its journal, inode tables and bitmaps. `resizeTo` is
 * called with image sizes (first with the limit itself when `start` is null: no image yet); each step divides what is missing
 * by what the previous step gave per byte (~95 %).
 */
async function fit(limitMb: number, used: number, measure: () => Promise<number>, resizeTo: (bytes: number) => Promise<void>, start: number | null): Promise<void> {
  const target = mbToBytes(limitMb);
  const slack = Math.max(256 * 1024, target * 0.002);
  let size = start ?? target;
  let last: { size: number; room: number } | null = null;
  let best: number | null = null;
  for (let i = 0; i < 8; i++) {
    if (i > 0 || start === null) await resizeTo(size);
    const room = (await measure()) + used;
    if (room >= target && (best === null || size < best)) best = size;
    if (room >= target && room <= target + slack) return;
    const marginal = last && size !== last.size ? Math.min(1, Math.max(0.8, (room - last.room) / (size - last.size))) : 0.95;
    last = { size, room };
    size = Math.ceil((size + (target - room) / marginal + 64 * 1024) / 4096) * 4096;
  }
  if (best === null) throw new AppError('internal', `The project folder could not be sized to ${limitMb} MB`);
  await resizeTo(best);
}

/** Room in an unmounted image, from its superblock (the free block count statfs reports once it is mounted). */
async function roomOffline(image: string): Promise<number> {
  const out = await run(['dumpe2fs', '-h', image]);
  const free = Number(/^Free blocks:\s+(\d+)$/m.exec(out)?.[1]);
  const blocks = Number(/^Block count:\s+(\d+)$/m.exec(out)?.[1]);
  if (!Number.isFinite(free) || !Number.isFinite(blocks)) throw new AppError('internal', `dumpe2fs gave no block counts for ${image}`);
  return Math.max(0, free * 4096 - reservedBytes(blocks * 4096));
}

/** What can still be written in the ext4 mounted on `point`, whose image has `imageBytes` (free less the reserve). */
async function roomOf(point: string, imageBytes: number): Promise<number> {
  const fs = await statfs(point);
  return Math.max(0, fs.bfree * fs.bsize - reservedBytes(imageBytes));
}

async function hasCapability(bit: number): Promise<boolean> {
  const status = await readFile('/proc/self/status', 'utf8');
  const eff = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  return eff ? (BigInt(`0x${eff}`) & (1n << BigInt(bit))) !== 0n : false;
}

/** The loop device `image` is attached to, or null. */
async function attachedDevice(image: string): Promise<string | null> {
  const out = await run(['losetup', '-j', image]);
  return /^(\/dev\/loop\d+):/m.exec(out)?.[1] ?? null;
}

/**
 * Every loop device attached to an image in `imagesDir` (a real path), by the image's file name: one read of the kernel's list
 * instead of a `losetup -j` (a scan of every loop device) per folder.
 */
async function attachedImages(imagesDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const devices = (await readdir('/sys/block').catch(() => [] as string[])).filter((n) => /^loop\d+$/.test(n));
  await forEachLimit(devices, 32, async (dev) => {
    const file = (await readFile(`/sys/block/${dev}/loop/backing_file`, 'utf8').catch(() => '')).trim();
    if (file && path.dirname(file) === imagesDir) out.set(path.basename(file), `/dev/${dev}`);
  });
  return out;
}

/** Whether `image` is attached to no loop device (any more), waiting up to `ms` for the kernel to let it go. */
async function detached(image: string, ms = 5_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!(await attachedDevice(image))) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Mounts `image` on `point`. When it is still attached (held in another mount namespace), through that same loop
 * device, so there is one ext4 superblock for it: two mounts through two devices would corrupt it.
 */
async function mountImage(image: string, point: string): Promise<void> {
  const dev = await attachedDevice(image);
  if (dev) await run(['mount', '-t', 'ext4', '-o', MOUNT_OPTIONS.replace('loop,', ''), dev, point]);
  else await run(['mount', '-t', 'ext4', '-o', MOUNT_OPTIONS, image, point]);
}

const readMountinfo = () => readFile('/proc/self/mountinfo', 'utf8');

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(value));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}
