// Project folders against the real kernel: loop-mounted ext4 images under a temporary data directory, filled
// until the kernel says no. Needs root (every machine Slipway's tests run on is). Every image, mount and loop
// device made here is gone at the end (checked).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, statfs, writeFile, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '@slipway/core';
import { silentLogger } from '@slipway/testing/logger';
import { requires, ROOT } from '@slipway/testing/skips';
import { FolderBusyError, LoopExt4Storage } from './loop-ext4.storage';
import { findMount } from './mountinfo';
import { run } from './run';

const MB = 1024 * 1024;

// Loop mounts and fills of hundreds of MB: seconds each, more on a loaded machine.
jest.setTimeout(120_000);
const asRoot = requires(ROOT).describe;

/** Writes 1 MiB blocks into `file` until the kernel refuses one; every accepted byte reaches the disk (fsync). */
async function fillUntilFull(file: string): Promise<{ written: number; error: NodeJS.ErrnoException }> {
  const block = Buffer.alloc(MB, 0x5a);
  const fh = await open(file, 'a');
  let written = 0;
  try {
    for (;;) {
      try {
        const { bytesWritten } = await fh.write(block, 0, block.length);
        written += bytesWritten;
        if (bytesWritten < block.length) {
          await fh.write(block, 0, block.length); // the rest of the block: this one fails
        }
      } catch (err) {
        await fh.sync().catch(() => undefined);
        return { written, error: err as NodeJS.ErrnoException };
      }
    }
  } finally {
    await fh.close();
  }
}

async function writeSynced(file: string, data: Buffer): Promise<void> {
  const fh = await open(file, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Bytes an image file really takes on the server's disk (it is sparse). */
const allocated = async (file: string) => (await stat(file)).blocks * 512;
const mounted = async (point: string) => findMount(await readFile('/proc/self/mountinfo', 'utf8'), point) !== null;
const sha = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex');
const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof AppError ? e.code : Promise.reject(e)),
  );

// Whether this machine's root may grow a mounted ext4 (CAP_SYS_RESOURCE, bit 24 of the effective set): read when the
// file is collected, so the case says which way it grows.
const GROWS_IN_PLACE = (BigInt(`0x${/^CapEff:\s+([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]}`) >> 24n) % 2n === 1n;

const GROW_MODE = GROWS_IN_PLACE ? 'in place: CAP_SYS_RESOURCE' : 'no CAP_SYS_RESOURCE: refused while open, grown once closed';

/** Grows `id` to 160 MB while `file` is open in it, the way this machine can; closes `file`. */
const growWithFileOpen = GROWS_IN_PLACE
  ? async (storage: LoopExt4Storage, id: string, _dir: string, file: FileHandle) => {
      expect(await storage.resize(id, 160)).toEqual({ limitMb: 160, usedMb: expect.any(Number) });
      await file.write('written after the resize\n');
      await file.close();
    }
  : async (storage: LoopExt4Storage, id: string, dir: string, file: FileHandle) => {
      // The folder grows unmounted, so not while a file is open in it.
      await expect(storage.resize(id, 160)).rejects.toBeInstanceOf(FolderBusyError);
      expect(await mounted(dir)).toBe(true);
      await file.close();
      expect(await storage.resize(id, 160)).toEqual({ limitMb: 160, usedMb: expect.any(Number) });
    };

asRoot('project folders on loop-mounted ext4 images (LoopExt4Storage)', () => {
  let base: string;
  let volumesDir: string;
  let storageDir: string;
  let storage: LoopExt4Storage;
  const made: string[] = [];
  const app = () => {
    const id = randomUUID();
    made.push(id);
    return id;
  };

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'slipway-storage-'));
    volumesDir = path.join(base, 'volumes');
    storageDir = path.join(base, 'storage');
    storage = new LoopExt4Storage({ volumesDir, storageDir, logger: silentLogger });
    await storage.start();
  });

  afterAll(async () => {
    for (const id of made) await storage.remove(id);
    const left = (await readFile('/proc/self/mountinfo', 'utf8')).split('\n').filter((l) => l.includes(base));
    const loops = (await run(['losetup', '-a'])).split('\n').filter((l) => l.includes(base));
    await rm(base, { recursive: true, force: true });
    expect(left).toEqual([]);
    expect(loops).toEqual([]);
  });

  it('an app that writes until it cannot stops within 1 % of its limit with ENOSPC, and only its folder is full', async () => {
    const a = app();
    const b = app();
    expect(await storage.create(a, 256)).toEqual({ limitMb: 256, usedMb: 0 });
    await storage.create(b, 64);
    const image = path.join(storageDir, 'images', `${a}.ext4`);
    const imageBefore = await allocated(image);
    const host = await statfs(storageDir);
    const hostFreeBefore = host.bavail * host.bsize;

    const { written, error } = await fillUntilFull(path.join(volumesDir, a, 'fill.bin'));
    expect(error.code).toBe('ENOSPC');
    expect(error.message).toMatch(/no space left on device/i);
    expect(written).toBeGreaterThanOrEqual(0.99 * 256 * MB);
    expect(written).toBeLessThanOrEqual(1.01 * 256 * MB);

    // What the folder took of the server's disk: its image grew by what was written, within 1 % of the limit.
    const grew = (await allocated(image)) - imageBefore;
    expect(grew).toBeLessThanOrEqual(1.01 * 256 * MB);
    const hostAfter = await statfs(storageDir);
    const hostDrop = hostFreeBefore - hostAfter.bavail * hostAfter.bsize;
    // Other processes share this disk: the server-wide figure is only logged, the image's growth is the measure.
    console.log(`filled ${(written / MB).toFixed(1)} MB of 256; image +${(grew / MB).toFixed(1)} MB; server free −${(hostDrop / MB).toFixed(1)} MB`);

    const used = (await storage.usage(a))!;
    expect(used.limitMb).toBe(256);
    expect(used.usedMb).toBeGreaterThanOrEqual(253);
    expect(used.usedMb).toBeLessThanOrEqual(257);

    // The other app of the server still writes.
    await writeFile(path.join(volumesDir, b, 'still-room.bin'), randomBytes(10 * MB));
    expect((await storage.usage(b))!.usedMb).toBeGreaterThanOrEqual(10);
    // And the full one can still delete, then write again.
    await rm(path.join(volumesDir, a, 'fill.bin'));
    await writeFile(path.join(volumesDir, a, 'again.txt'), 'room again');
  });

  it(`grows a folder with its data kept, while a file in it stays open (${GROW_MODE})`, async () => {
    const id = app();
    await storage.create(id, 64);
    const dir = path.join(volumesDir, id);
    await writeFile(path.join(dir, 'keep.bin'), randomBytes(20 * MB));
    const before = await sha(path.join(dir, 'keep.bin'));
    const open1 = await open(path.join(dir, 'open.log'), 'a');
    const first = await fillUntilFull(path.join(dir, 'fill.bin'));
    expect(first.error.code).toBe('ENOSPC');

    expect(storage.growsInPlace).toBe(GROWS_IN_PLACE);
    await growWithFileOpen(storage, id, dir, open1);
    expect((await storage.usage(id))!.usedMb).toBeGreaterThanOrEqual(62);
    expect(await sha(path.join(dir, 'keep.bin'))).toBe(before);
    const second = await fillUntilFull(path.join(dir, 'fill2.bin'));
    expect(second.error.code).toBe('ENOSPC');
    const total = 20 * MB + first.written + second.written;
    expect(total).toBeGreaterThanOrEqual(0.99 * 160 * MB);
    expect(total).toBeLessThanOrEqual(1.01 * 160 * MB);

    expect(await codeOf(storage.resize(id, 100))).toBe('validation_failed'); // only grows
    expect(await codeOf(storage.create(id, 100))).toBe('validation_failed');
    expect(await storage.create(id, 160)).toMatchObject({ limitMb: 160 }); // the same create again: nothing to do
    expect(await codeOf(storage.resize(randomUUID(), 100))).toBe('not_found');
    expect(await codeOf(storage.create('../etc', 100))).toBe('invalid_path');
    expect(await codeOf(storage.create(randomUUID(), 1.5))).toBe('validation_failed');
  });

  it('mounts every folder again at start, and nothing can be written where a folder is not mounted', async () => {
    const id = app();
    await storage.create(id, 32);
    const dir = path.join(volumesDir, id);
    await writeFile(path.join(dir, 'hello.txt'), 'still here');
    await storage.unmountAll(); // as after a reboot
    expect(await mounted(dir)).toBe(false);
    // The bare mount point is immutable: what Docker would bind there before the agent starts writes nothing.
    await expect(writeFile(path.join(dir, 'escape.txt'), 'x')).rejects.toMatchObject({ code: 'EPERM' });
    // A create that stopped half-way leaves a .part image: removed at start.
    await writeFile(path.join(storageDir, 'images', `${randomUUID()}.ext4.part`), 'half');

    const again = new LoopExt4Storage({ volumesDir, storageDir, logger: silentLogger });
    await again.start();
    await again.start(); // twice: nothing more
    expect(await mounted(dir)).toBe(true);
    expect(await readFile(path.join(dir, 'hello.txt'), 'utf8')).toBe('still here');
    expect((await readdir(path.join(storageDir, 'images'))).filter((n) => n.endsWith('.part'))).toEqual([]);
    expect(await again.usage(id)).toEqual({ limitMb: 32, usedMb: expect.any(Number) });
    const all = await again.usageAll();
    for (const other of made) expect(all.get(other)).toMatchObject({ limitMb: expect.any(Number) });
  });

  it('after a reboot, mounts the folders of the apps that run first, one asked for out of turn, and one removed meanwhile not at all (issue 34)', async () => {
    const [a, b, c, d, gone] = [app(), app(), app(), app(), app()] as [string, string, string, string, string];
    for (const id of [a, b, c, d, gone]) await storage.create(id, 16);
    await writeFile(path.join(volumesDir, d, 'asked.txt'), 'out of turn');
    await storage.unmountAll(); // as after a reboot
    const order: string[] = [];
    const again = new LoopExt4Storage({ volumesDir, storageDir, logger: silentLogger, startConcurrency: 1 });
    const { folders, mounted: all } = await again.begin({ first: [c, b], onMounted: (id) => order.push(id) });
    await again.remove(gone);
    await again.ready(d);
    expect(await readFile(path.join(volumesDir, d, 'asked.txt'), 'utf8')).toBe('out of turn');
    expect(await all).toEqual({ mounted: folders - 1, failed: 0 });
    expect(order.filter((id) => id !== d)[0]).toBe(c);
    expect(order.indexOf(b)).toBeLessThan(order.indexOf(a));
    expect(order).toEqual(expect.arrayContaining([a, b, c, d]));
    expect(order).not.toContain(gone);
    expect(await mounted(path.join(volumesDir, a))).toBe(true);
    await expect(stat(path.join(storageDir, 'images', `${gone}.ext4`))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes the files of a folder made before this layer into the new file system', async () => {
    const id = app();
    const dir = path.join(volumesDir, id);
    await mkdir(path.join(dir, 'sub'), { recursive: true });
    await writeFile(path.join(dir, 'sub', 'old.txt'), 'from before');
    await storage.create(id, 32);
    expect(await mounted(dir)).toBe(true);
    expect(await readFile(path.join(dir, 'sub', 'old.txt'), 'utf8')).toBe('from before');
  });

  it('removes a folder and gives its space back', async () => {
    const id = app();
    await storage.create(id, 128);
    await writeSynced(path.join(volumesDir, id, 'data.bin'), randomBytes(100 * MB));
    const image = path.join(storageDir, 'images', `${id}.ext4`);
    expect(await allocated(image)).toBeGreaterThanOrEqual(100 * MB);
    const before = await storage.serverDisk();
    await storage.remove(id);
    await storage.remove(id); // idempotent
    await expect(stat(image)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(path.join(volumesDir, id))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await storage.usage(id)).toBeNull();
    const after = await storage.serverDisk();
    expect(after.allocatedMb).toBe(before.allocatedMb - 128);
    expect(after.folders).toBe(before.folders - 1);
    expect(after.totalMb).toBeGreaterThan(0);
  });

  it("counts the folders' sizes as their records say after creates, a resize and a removal, as a new read of the records does", async () => {
    // The first call reads the records; the sizes are kept from then on with every record written or removed. (An
    // instance of its own: `storage` shared the folder with the one of the reboot case, which removed a folder.)
    const mine = new LoopExt4Storage({ volumesDir, storageDir, logger: silentLogger });
    const before = await mine.serverDisk();
    const [a, b] = [app(), app()];
    await mine.create(a, 32);
    await mine.create(b, 64);
    expect(await mine.serverDisk()).toMatchObject({ allocatedMb: before.allocatedMb + 96, folders: before.folders + 2 });
    await mine.resize(a, 48);
    await mine.remove(b);
    const after = await mine.serverDisk();
    expect(after).toMatchObject({ allocatedMb: before.allocatedMb + 48, folders: before.folders + 1 });
    const fresh = new LoopExt4Storage({ volumesDir, storageDir, logger: silentLogger });
    expect(await fresh.serverDisk()).toMatchObject({ allocatedMb: after.allocatedMb, folders: after.folders });
  });
});
