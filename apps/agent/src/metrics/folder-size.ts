import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The size of a folder that is not its own file system (folders from before issue 21): a walk with lstat, so a
 * symlink counts as itself and is never followed, bounded in entries (past the bound the size found so far is
 * returned: a lower bound, never a hang on a folder of millions of files). Allocated blocks, as `du` counts them.
 */
export async function folderSizeMb(dir: string, maxEntries = 100_000): Promise<number> {
  let bytes = 0;
  let entries = 0;
  const stack = [dir];
  while (stack.length > 0 && entries < maxEntries) {
    const current = stack.pop()!;
    const names = await readdir(current).catch(() => [] as string[]);
    for (const name of names) {
      if (++entries > maxEntries) break;
      const st = await lstat(path.join(current, name)).catch(() => null);
      if (!st) continue;
      bytes += st.blocks * 512;
      if (st.isDirectory()) stack.push(path.join(current, name));
    }
  }
  return Math.ceil(bytes / 1024 / 1024);
}
