import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { folderSizeMb } from './folder-size';

describe('folderSizeMb (a bounded walk that never follows symlinks)', () => {
  let dir: string;
  let outside: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-walk-'));
    outside = await mkdtemp(path.join(os.tmpdir(), 'slipway-walk-outside-'));
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub', 'a.bin'), Buffer.alloc(3 * 1024 * 1024, 1));
    await writeFile(path.join(outside, 'big.bin'), Buffer.alloc(20 * 1024 * 1024, 1));
    await symlink(outside, path.join(dir, 'out'));
    await symlink(dir, path.join(dir, 'sub', 'loop'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("counts the folder's own files, not what its symlinks point to, and ends on a symlink loop", async () => {
    const mb = await folderSizeMb(dir);
    expect(mb).toBeGreaterThanOrEqual(3);
    expect(mb).toBeLessThan(5);
  });

  it('stops at the entry bound', async () => {
    expect(await folderSizeMb(dir, 1)).toBeLessThan(3);
  });
});
