// How the CLI speaks: tables for people, the API's objects unchanged with --json, colours only on a TTY without
// NO_COLOR, and one exit code per kind of failure (README: 0 done, 1 failed, 2 usage, 3 not found, 4 wrong state,
// 5 not allowed).
import { ApiError } from '@slipway/api-client';
import { createColors } from 'picocolors';

export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, wrongState: 4, notAllowed: 5 } as const;

/** A failure the CLI itself reports: a sentence and an exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly code?: string,
  ) {
    super(message);
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return EXIT.notAllowed;
    if (error.status === 404) return EXIT.notFound;
    if (error.status === 409) return EXIT.wrongState;
    if (error.status === 400 || error.status === 413 || error.status === 415) return EXIT.usage;
    return EXIT.failed;
  }
  return EXIT.failed;
}

export const useColour = (stream: NodeJS.WriteStream): boolean => Boolean(stream.isTTY) && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');
export const colours = createColors(useColour(process.stdout));
export const errColours = createColors(useColour(process.stderr));

/** The line printed for a failure: the API's code and message, or the CLI's sentence. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.details.map((d) => `\n  ${d.path ?? ''} ${d.message ?? ''}`.trimEnd()).join('');
    return `${errColours.red('error')} ${errColours.bold(error.code)}: ${error.message}${details}`;
  }
  if (error instanceof CliError) return `${errColours.red('error')}${error.code ? ` ${errColours.bold(error.code)}` : ''}: ${error.message}`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (error instanceof TypeError && cause?.code) {
    return `${errColours.red('error')}: could not reach the platform (${cause.code}${cause.message ? `: ${cause.message}` : ''})`;
  }
  return `${errColours.red('error')}: ${(error as Error)?.message ?? String(error)}`;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Progress and notes go to stderr so that stdout stays what was asked for. */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const width = (s: string) => s.replace(ANSI, '').length;

/** A plain table: a header row and aligned columns; an empty list says so. */
export function table(headers: string[], rows: (string | number | null | undefined)[][], empty = 'nothing yet'): void {
  if (rows.length === 0) {
    say(colours.dim(empty));
    return;
  }
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => width(r[i] ?? ''))));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - width(c)))).join('  ').trimEnd();
  say(colours.bold(line(headers.map((h) => h.toUpperCase()))));
  for (const r of cells) say(line(r));
}

/** Key: value lines for one object. */
export function fields(pairs: [string, string | number | boolean | null | undefined][]): void {
  const w = Math.max(...pairs.map(([k]) => k.length));
  for (const [k, v] of pairs) say(`${colours.dim(`${k}:`.padEnd(w + 1))} ${v === null || v === undefined || v === '' ? '-' : String(v)}`);
}

export function statusColour(status: string): string {
  if (['live', 'running', 'completed', 'active', 'verified'].includes(status)) return colours.green(status);
  if (['failed', 'crashed', 'cancelled', 'error'].includes(status)) return colours.red(status);
  if (['stopped', 'superseded', 'idle'].includes(status)) return colours.dim(status);
  return colours.yellow(status);
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
