import { spawn } from 'node:child_process';

/**
 * A folder as a tar stream (numeric owners, modes, times, links as links), for a move (issue 32). `changedOk`: tar's
 * exit 1 ("a file changed as we read it") is accepted — a live app's project folder, caught up after it stops.
 */
export function tarFolder(folder: string, o: { changedOk: boolean; exclude?: string[] }): AsyncIterable<Buffer> {
  const args = ['-c', '--numeric-owner', ...(o.exclude ?? []).map((p) => `--exclude=${p}`), '-C', folder, '.'];
  const tar = spawn('tar', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    tar.on('error', reject);
    tar.on('close', (code) => resolve(code ?? -1));
  });
  return (async function* () {
    try {
      for await (const data of tar.stdout as AsyncIterable<Buffer>) yield data;
      const code = await exited;
      if (code !== 0 && !(o.changedOk && code === 1)) throw new Error(`tar failed (${code}): ${stderr.trim()}`);
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
