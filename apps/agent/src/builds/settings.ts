import { lstat, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { BuildPlan, SourceTree } from './detect';
import { BuildError } from './extract';

/**
 * An app's own build settings (issue 23), over detection. Kept apart from detection and the Dockerfile generator:
 * the start command reaches detection as the `web:` line of a Procfile (which every detected language already
 * honours), the build command replaces the plan's build step, and the root directory picks the folder detection
 * looks at. Commands are data for `sh -c` inside the build container (RUN) and the app's container (CMD); no shell of
 * the server ever sees them.
 */
export interface AppBuildSettings {
  /** Replaces the detected build step (Node.js); null: detected. */
  buildCommand: string | null;
  /** Replaces the detected start command (Node.js, Python, static); null: detected. */
  startCommand: string | null;
  /** The folder of the upload to build from, relative to its root; null: the root. */
  rootDirectory: string | null;
}

export const NO_SETTINGS: AppBuildSettings = { buildCommand: null, startCommand: null, rootDirectory: null };

const MAX_COMMAND = 1024;
const SEGMENT = /^[A-Za-z0-9._@+-]+$/;

/** The settings of a BuildZip request, checked again here (empty strings mean "not set"); BuildError when invalid. */
export function parseSettings(raw: { buildCommand?: string; startCommand?: string; rootDirectory?: string }): AppBuildSettings {
  return {
    buildCommand: command('buildCommand', raw.buildCommand),
    startCommand: command('startCommand', raw.startCommand),
    rootDirectory: rootDirectory(raw.rootDirectory),
  };
}

function command(name: string, value: string | undefined): string | null {
  const v = value?.trim() ?? '';
  if (!v) return null;
  // One line, no control characters: nothing can end the RUN/CMD it is written into or start another instruction.
  // eslint-disable-next-line no-control-regex
  if (v.length > MAX_COMMAND || /[\u0000-\u001f\u007f]/.test(v)) throw new BuildError(`${name} must be one line of at most ${MAX_COMMAND} characters, without control characters`);
  return v;
}

/** A relative folder of plain names (letters, digits, . _ @ + -), no `.`/`..` segments; `./a/b/` becomes `a/b`. */
export function rootDirectory(value: string | undefined): string | null {
  const v = (value ?? '').trim().replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (!v || v === '.') return null;
  const segments = v.split('/');
  if (v.length > 255 || segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) {
    throw new BuildError(`rootDirectory "${value}" must be a relative folder of the upload (names of letters, digits, . _ @ + -, no ".." or leading "/")`);
  }
  return segments.join('/');
}

/**
 * The folder of the extracted upload to build from. Each segment must be a real folder (not a link: extraction
 * refuses links anyway) and the result stays inside `uploadDir`.
 */
export async function resolveRoot(uploadDir: string, root: string | null): Promise<string> {
  if (!root) return uploadDir;
  let at = uploadDir;
  for (const segment of root.split('/')) {
    at = path.join(at, segment);
    const st = await lstat(at).catch(() => null);
    if (!st?.isDirectory()) throw new BuildError(`The root directory ${root}/ is not a folder of the upload (${path.relative(uploadDir, at)} ${st ? 'is not a folder' : 'is missing'})`);
  }
  if (path.relative(uploadDir, at).startsWith('..')) throw new BuildError(`The root directory ${root}/ is outside the upload`);
  return at;
}

/**
 * Narrows the extracted upload at `appDir` to its root directory: that folder takes the place of the whole upload
 * (the rest is not part of the build, as on Vercel by default).
 */
export async function narrowToRoot(appDir: string, root: string | null): Promise<void> {
  if (!root) return;
  const from = await resolveRoot(appDir, root);
  const kept = `${appDir}.root`;
  await rename(from, kept);
  await rm(appDir, { recursive: true, force: true });
  await rename(kept, appDir);
}

/** The tree detection sees: with a start command set, it reads as a Procfile's `web:` line, over any real Procfile. */
export function withStartCommand(tree: SourceTree, s: AppBuildSettings): SourceTree {
  if (!s.startCommand) return tree;
  const start = s.startCommand;
  return { files: new Set([...tree.files, 'Procfile']), read: (name) => (name === 'Procfile' ? `web: ${start}\n` : tree.read(name)) };
}

/** The plan with the app's settings applied, and the lines that say so in the build log. */
export function applySettings(plan: BuildPlan, s: AppBuildSettings): { plan: BuildPlan; lines: string[] } {
  const lines: string[] = [];
  if (s.rootDirectory) lines.push(`Root directory from the app's settings: ${s.rootDirectory}/`);
  if (plan.language === 'dockerfile') {
    if (s.buildCommand || s.startCommand) lines.push("The app's build and start commands are not used: the upload's Dockerfile decides (its RUN and CMD)");
    return { plan, lines };
  }
  // Detection took the start command as a Procfile's line (and saw the build script): say what really decides.
  let reasons = s.startCommand ? plan.reasons.filter((r) => !/Procfile/.test(r)) : plan.reasons;
  if (s.buildCommand && plan.language === 'node') {
    // The summary line ("Node 24 … · npm ci · <build> · <start>") names the build it detected: name ours instead.
    const summary = (plan as { summary?: string }).summary;
    reasons = reasons
      .filter((r) => !/build script/.test(r))
      .map((r) => {
        const parts = r.split(' · ');
        if (r !== summary || parts.length < 4) return r;
        parts[parts.length - 2] = s.buildCommand!;
        return parts.join(' · ');
      });
  }
  if (s.startCommand) lines.push(`Start command from the app's settings: ${s.startCommand}`);
  if (!s.buildCommand) return { plan: { ...plan, reasons }, lines };
  if (plan.language !== 'node') {
    lines.push(`The app's build command is not used: ${plan.language === 'python' ? 'Python' : 'static'} builds have no build step`);
    return { plan: { ...plan, reasons }, lines };
  }
  lines.push(`Build command from the app's settings: ${s.buildCommand}`);
  // Quoted for the RUN line's own sh -c, then run by a second sh -c: the command is one argument, whatever it holds.
  return { plan: { ...plan, reasons, build: `sh -c ${shellQuote(s.buildCommand)}` }, lines };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The app's variables for its build, checked again here: names as the API allows them, values as text. */
export function parseVariables(raw: { key?: string; value?: string; secret?: boolean }[] | undefined): { key: string; value: string; secret: boolean }[] {
  const out: { key: string; value: string; secret: boolean }[] = [];
  for (const v of raw ?? []) {
    if (!v.key || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.key)) throw new BuildError(`A build variable's name (${JSON.stringify(String(v.key ?? '').slice(0, 40))}) is not a valid variable name`);
    out.push({ key: v.key, value: v.value ?? '', secret: Boolean(v.secret) });
  }
  return out;
}
