import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a set of files as one: into a temporary sibling folder, then renamed into place. When two
 * processes race (API and worker on first start), one rename wins and the other reads the winner's
 * files, so there is never a half-written or second CA. Keys are 0600, the folder 0700.
 */
export async function createFilesOnce(dir: string, files: Record<string, string>): Promise<boolean> {
  await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
  const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
  await mkdir(tmp, { mode: 0o700 });
  try {
    for (const [name, content] of Object.entries(files)) {
      await writeFile(path.join(tmp, name), content, { mode: 0o600 });
      await chmod(path.join(tmp, name), 0o600);
    }
    await rename(tmp, dir);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    await rm(tmp, { recursive: true, force: true });
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw e;
  }
}

export async function readFiles<K extends string>(dir: string, names: readonly K[]): Promise<Record<K, string> | null> {
  const out = {} as Record<K, string>;
  for (const name of names) {
    try {
      out[name] = await readFile(path.join(dir, name), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }
  return out;
}
