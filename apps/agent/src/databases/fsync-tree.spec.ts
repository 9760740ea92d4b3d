import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fsyncTree } from './fsync-tree';

describe('fsyncTree', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fsync-tree-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('syncs every file and folder below the folder and the folder itself, without following links', async () => {
    await mkdir(path.join(dir, 'base', '1'), { recursive: true });
    for (let i = 0; i < 50; i++) await writeFile(path.join(dir, 'base', '1', `f${i}`), 'x');
    await writeFile(path.join(dir, 'PG_VERSION'), '15\n');
    await symlink('/nonexistent', path.join(dir, 'dangling'));
    // 50 files + PG_VERSION + base + base/1 + the folder itself; the dangling link is not opened.
    await expect(fsyncTree(dir, 4)).resolves.toBe(54);
  });

  it('skips a file removed between the listing and its sync (the engine runs meanwhile)', async () => {
    await writeFile(path.join(dir, 'a'), 'x');
    const listed = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
    const real = listed.readdir;
    const spy = jest.spyOn(listed, 'readdir').mockImplementationOnce(async (...args: Parameters<typeof real>) => {
      const entries = await (real as (...a: unknown[]) => Promise<unknown[]>)(...args);
      await rm(path.join(dir, 'a'));
      return entries as never;
    });
    await expect(fsyncTree(dir)).resolves.toBe(2);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('syncs an empty folder', async () => {
    await expect(fsyncTree(dir)).resolves.toBe(1);
  });
});
