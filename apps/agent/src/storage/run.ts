import { execFile } from 'node:child_process';

/** A command that exited non-zero (or could not start): its argv and what it printed on stderr. */
export class CommandError extends Error {
  constructor(
    readonly argv: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | string | null,
  ) {
    super(`${argv.join(' ')} failed (${exitCode ?? 'signal'}): ${stderr.trim() || 'no output'}`);
  }
}

/** Runs argv[0] with argv[1..] (never through a shell) and resolves with its stdout. */
export function run(argv: readonly string[], timeoutMs = 120_000): Promise<string> {
  const [file, ...args] = argv;
  if (!file) return Promise.reject(new Error('run: empty argv'));
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException & { code?: number | string }).code ?? null;
        reject(new CommandError(argv, String(stderr || err.message), code));
        return;
      }
      resolve(String(stdout));
    });
  });
}
