import { open, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * fsync of every file and folder under `dir` (the folder itself included), `concurrency` at a time: what an engine's
 * own initialisation would have done file after file (PostgreSQL's initdb without `--no-sync`), in one pass whose
 * journal commits the file system can share. Symbolic links are not followed; a file gone meanwhile is skipped.
 */
export async function fsyncTree(dir: string, concurrency = 32): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const paths = [
    ...entries.filter((e) => e.isFile() || e.isDirectory()).map((e) => path.join(e.parentPath, e.name)),
    // Folders after their files: a new file's entry is durable once its folder is synced.
    dir,
  ].sort((a, b) => b.length - a.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      // The engine runs: a file listed a moment ago may be gone (renamed statistics, temporary files).
      const handle = await open(paths[next++]!, 'r').catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (!handle) continue;
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
  return paths.length;
}
