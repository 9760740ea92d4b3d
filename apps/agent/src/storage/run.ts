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

/** Where the system's tools are: the PATH of every process the agent starts (never the agent's own PATH). */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The tools' whole environment: where they are, and C messages (stderr is matched in English: "busy", "Bad option").
 * None of the agent's own variables (its settings, secrets among them) reach mount or mkfs; and Node copies the
 * environment it is given at each spawn, the agent's second-largest garbage in a burst of deployments with all of it.
 */
const TOOL_ENV = { PATH: SYSTEM_PATH, LC_ALL: 'C' };

/** Runs argv[0] with argv[1..] (never through a shell) and resolves with its stdout. */
export function run(argv: readonly string[], timeoutMs = 120_000): Promise<string> {
  const [file, ...args] = argv;
  if (!file) return Promise.reject(new Error('run: empty argv'));
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: TOOL_ENV }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException & { code?: number | string }).code ?? null;
        reject(new CommandError(argv, String(stderr || err.message), code));
        return;
      }
      resolve(String(stdout));
    });
  });
}
