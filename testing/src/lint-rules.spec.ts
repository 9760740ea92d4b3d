// Issue 35: the lint rules that keep tests honest are in force. ESLint's Node API lints small spec sources with the
// repository's own eslint.config.mjs (type information included) and must report each rule. ESLint loads its config
// with a dynamic import, which jest's module sandbox refuses: it runs in a child Node process. Type information needs
// files the tsconfig holds: the samples are written beside this spec for the time of the lint (one ESLint run).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const LINT = `
const { ESLint } = require('eslint');
new ESLint({ cwd: process.cwd() }).lintFiles(process.argv.slice(1)).then((rs) => console.log(JSON.stringify(rs.map((r) => r.messages.map((m) => m.ruleId ?? m.message)))));
`;

const SAMPLES = {
  conditionalExpect: "it('x', () => {\n  const n = Number('1');\n  if (n > 0) {\n    expect(n).toBe(1);\n  }\n});\n",
  rest: ["it.skip('x', () => {});", "xit('y', () => {});", "it('z', async () => {", '  expect(1);', '  Promise.resolve(1);', '});', ''].join('\n'),
  plain: "it('x', async () => {\n  expect(Number('1')).toBe(1);\n  await Promise.resolve(1);\n});\n",
};

/** The rule ids ESLint reports for each source as a spec file of this repository. */
async function rulesBroken(sources: string[]): Promise<string[][]> {
  const tag = randomBytes(4).toString('hex');
  const files = sources.map((_, i) => path.join(__dirname, `lint-sample-${tag}-${i}.spec.ts`));
  try {
    await Promise.all(files.map((f, i) => writeFile(f, sources[i]!)));
    const { stdout } = await run(process.execPath, ['-e', LINT, ...files], { cwd: ROOT });
    return JSON.parse(stdout) as string[][];
  } finally {
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}

describe('eslint on specs (the repository config)', () => {
  let found: Record<keyof typeof SAMPLES, string[]>;
  beforeAll(async () => {
    const keys = Object.keys(SAMPLES) as (keyof typeof SAMPLES)[];
    const results = await rulesBroken(keys.map((k) => SAMPLES[k]));
    found = Object.fromEntries(keys.map((k, i) => [k, results[i]!])) as typeof found;
  });

  it('refuses an expect inside an if', () => {
    expect(found.conditionalExpect).toEqual(expect.arrayContaining(['jest/no-conditional-expect', 'jest/no-conditional-in-test']));
  });

  it('refuses a bare it.skip, a disabled test, an expect without its matcher, and a promise left floating', () => {
    expect(found.rest).toEqual(expect.arrayContaining(['no-restricted-syntax', 'jest/no-disabled-tests', 'jest/valid-expect', '@typescript-eslint/no-floating-promises']));
  });

  it('accepts the same checks written plainly', () => {
    expect(found.plain).toEqual([]);
  });
});
