/**
 * The failureReason of a build step that failed, in words (issue 30, item 3): what the step was doing, then the error
 * the tool printed (its last error lines, trimmed), never the Dockerfile line. Lines the platform prints itself start
 * with "slipway: " and are the reason as they stand.
 */
export function failureReason(step: string, lines: string[], dockerError: string, memoryMb: number): string {
  const code = /returned a non-zero code: (\d+)/.exec(dockerError)?.[1];
  const ours = lines.filter((l) => l.startsWith('slipway: ')).map((l) => l.slice('slipway: '.length));
  if (ours.length) return ours[ours.length - 1]!;
  const what = describeStep(step);
  if (code === '137') return `${what} was killed: it may have run out of the build's ${memoryMb} MB of memory`;
  if (code === undefined) return `${what} failed: ${clip(dockerError.trim(), 300)}`;
  const errors = toolErrors(lines);
  const exit = code === '127' ? ' (exit code 127: a command was not found)' : ` (exit code ${code})`;
  return errors.length ? `${what} failed${exit}: ${clip(errors.join(' '), 600)}` : `${what} failed${exit}; the build log above shows its output`;
}

/** The step as a user knows it: the install, the build script, a prune, or the command of their own Dockerfile. */
function describeStep(step: string): string {
  // BuildKit's step names carry the mounts, the cache marker (build-cache.ts) and the variables launcher: the command is what follows them.
  const run = (/^RUN (.*)$/.exec(step)?.[1] ?? step).replace(/^(--mount=\S+\s+)+/, '').replace(/^: \S+-cache && /, '').replace(/^node \/usr\/local\/share\/slipway\/with-env\.cjs /, '');
  if (/slipway-install|^(npm ci|npm install|pnpm install|yarn install|corepack )/.test(run)) return 'Installing the dependencies';
  if (/^(npm|pnpm|yarn) run build\b/.test(run)) return `The build script (${/^(\S+ run build)/.exec(run)![1]})`;
  if (/^(npm prune|pnpm prune|yarn install --production)/.test(run)) return 'Pruning to production dependencies';
  if (/^sh -c /.test(run)) return 'The build command';
  if (/^pip install/.test(run)) return 'Installing the Python dependencies';
  if (/^COPY --from=build \/app\/\.next\/standalone/.test(step)) return "Copying Next.js's standalone output";
  return `The step "${clip(step, 120)}"`;
}

// Lines a tool prints as an error, and the noise around them (npm's own footer, stack frames).
const ERROR = /(^|\s)(npm ERR!|npm error|ERR_PNPM_\w+|error( TS\d+)?:?|Error:|ERROR|\[ERROR\]|✘|✗|YN\d{4}:.*error|Error \[)/i;
const NOISE = [
  /A complete log of this run can be found in/i,
  /^npm (ERR!|error) (code|path|command|errno|syscall|signal|workspace|location)\b/i,
  /^npm (ERR!|error)\s*$/i,
  /^\s+at\s/,
  /Lifecycle script .* failed with error/i,
  /^error Command failed with exit code/i,
  /^info Visit https:\/\/yarnpkg/i,
  /^ELIFECYCLE/,
  /^\s*(ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL|ELIFECYCLE)/,
];

/** The last few error lines of a step's output, oldest first, without the tool's footers. */
export function toolErrors(lines: string[]): string[] {
  const picked: string[] = [];
  for (let i = lines.length - 1; i >= 0 && picked.length < 4; i--) {
    const line = lines[i]!.trim();
    if (!line || NOISE.some((n) => n.test(line)) || !ERROR.test(line)) continue;
    const text = line.replace(/^(npm (ERR!|error)\s*)/, '');
    if (text && !picked.includes(text)) picked.unshift(text);
  }
  return picked;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
