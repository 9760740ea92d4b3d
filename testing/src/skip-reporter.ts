// A jest reporter (listed in jest.config.ts): at the end of the run, how many cases were skipped and why (issue 35).
// A skip made by requires() of ./skips carries its reason in the title (`… [skipped: reason]`); any other skip is
// printed as having none. Cases left out by --testNamePattern are counted apart: they were not selected.

/** The part of jest's test results this reporter reads. */
interface CaseResult {
  status: string;
  fullName: string;
}
interface FileResult {
  testFilePath: string;
  testResults: CaseResult[];
}
interface RunConfig {
  rootDir: string;
  testNamePattern?: string;
}

export interface Skip {
  file: string;
  title: string;
  reason: string;
}

const SKIPPED = new Set(['pending', 'skipped', 'todo', 'disabled']);
const REASON = /\[skipped: (.*)\]/;

/** The skipped cases of one file, with their reasons; cases outside `namePattern` are left out (not selected). */
export function skipsOf(file: FileResult, rootDir: string, namePattern?: string): Skip[] {
  const selected = namePattern ? new RegExp(namePattern, 'i') : null;
  const rel = file.testFilePath.startsWith(`${rootDir}/`) ? file.testFilePath.slice(rootDir.length + 1) : file.testFilePath;
  return file.testResults
    .filter((t) => SKIPPED.has(t.status) && (selected === null || selected.test(t.fullName)))
    .map((t) => ({ file: rel, title: t.fullName, reason: REASON.exec(t.fullName)?.[1] ?? 'no reason given (skip through requires() of @slipway/testing/skips)' }));
}

/** The lines printed at the end: a count, then each reason with its cases. */
export function summary(skips: Skip[]): string[] {
  if (skips.length === 0) return ['Skipped: 0 cases.'];
  const byReason = new Map<string, Skip[]>();
  for (const s of skips) byReason.set(s.reason, [...(byReason.get(s.reason) ?? []), s]);
  const lines = [`Skipped: ${skips.length} case${skips.length === 1 ? '' : 's'}, for ${byReason.size} reason${byReason.size === 1 ? '' : 's'}:`];
  for (const [reason, cases] of byReason) {
    lines.push(`  ${reason} (${cases.length}):`);
    for (const c of cases) lines.push(`    ${c.file}: ${c.title.replace(` [skipped: ${reason}]`, '')}`);
  }
  return lines;
}

export default class SkipReporter {
  // Node loads this file itself (type stripping, not swc): no parameter properties or other TypeScript-only syntax.
  private readonly skips: Skip[] = [];
  private readonly config: RunConfig;

  constructor(config: RunConfig) {
    this.config = config;
  }

  onTestResult(_test: unknown, result: FileResult): void {
    this.skips.push(...skipsOf(result, this.config.rootDir, this.config.testNamePattern));
  }

  onRunComplete(): void {
    process.stderr.write(`\n${summary(this.skips).join('\n')}\n`);
  }

  getLastError(): Error | undefined {
    return undefined;
  }
}
