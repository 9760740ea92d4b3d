import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * A folder as a tar stream (numeric owners, modes, times, links as links), for a move (issue 32). `changedOk`: tar's
 * exit 1 ("a file changed as we read it") is accepted — a live app's project folder, caught up after it stops. `live`:
 * the folder is a running engine's (a database's pre-copy): files that change, shrink or vanish as they are read, and
 * those that cannot be read, are no failure and no warning (the delta made once the engine stopped corrects them).
 */
export function tarFolder(folder: string, o: { changedOk: boolean; live?: boolean; exclude?: string[] }): AsyncIterable<Buffer> {
  const live = o.live ? ['--ignore-failed-read', '--warning=no-file-changed', '--warning=no-file-removed', '--warning=no-file-shrank'] : [];
  const args = ['-c', '--numeric-owner', ...live, ...(o.exclude ?? []).map((p) => `--exclude=${p}`), '-C', folder, '.'];
  const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => resolve(code ?? -1));
  });
  const changedOk = o.changedOk || o.live === true;
  return (async function* () {
    try {
      for await (const data of tar.stdout as AsyncIterable<Buffer>) yield data;
      const code = await exited;
      if (code !== 0 && !(changedOk && code === 1)) throw new Error(`tar failed (${code}): ${stderr.trim()}`);
    } finally {
      if (tar.exitCode === null) tar.kill();
    }
  })();
}

/** Unpacks a tar file into `folder` keeping numeric owners and modes; files of the tar replace, others stay. */
export function untarInto(tarFile: string, folder: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const tar = spawn('tar', ['-x', '--numeric-owner', '--same-owner', '-p', '--overwrite', '-C', folder, '-f', tarFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar failed (${code}): ${stderr.trim()}`))));
  });
}

/**
 * Unpacks a tar into `folder` as it arrives (no spool file: the bytes are written once), keeping numeric owners and
 * modes, and answers the bytes unpacked once tar finished (0: nothing came, nothing unpacked). A stream that fails
 * stops tar and throws: what was unpacked must then be discarded by the caller.
 */
export async function untarStream(data: AsyncIterable<Buffer>, folder: string): Promise<number> {
  const tar = spawn('tar', ['-x', '--numeric-owner', '--same-owner', '-p', '--overwrite', '-C', folder, '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => resolve(code ?? -1));
  });
  // A tar that exits early (a broken archive) closes its input: the write's EPIPE is reported through the exit below.
  tar.stdin.on('error', () => undefined);
  let received = 0;
  let finished = false;
  try {
    for await (const chunk of data) {
      received += chunk.length;
      if (tar.exitCode !== null) throw new Error(`tar failed (${tar.exitCode}): ${stderr.trim()}`);
      if (!tar.stdin.write(chunk)) await Promise.race([once(tar.stdin, 'drain'), exited]);
    }
    finished = true;
    // Nothing sent (the source had no folder): nothing to unpack, and tar would call an empty input no archive.
    if (received === 0) {
      tar.kill();
      await exited;
      return 0;
    }
    tar.stdin.end();
    const code = await exited;
    if (code !== 0) throw new Error(`tar failed (${code}): ${stderr.trim()}`);
    return received;
  } finally {
    if (tar.exitCode === null && !finished) tar.kill();
  }
}
