// Issue 35: what CI's machine must have fails the run under CI=true instead of being skipped. deploy/test.sh checks
// its gates first; SLIPWAY_TEST_GATES_ONLY=1 stops it there, so this runs the real script without the suite.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { skipsOf, summary } from './skip-reporter';
import { isCi } from './skips';

const run = promisify(execFile);
const TEST_SH = path.resolve(__dirname, '../../deploy/test.sh');

/** deploy/test.sh's gates with `env` (over a clean environment); its exit code and output. */
async function gates(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SLIPWAY_TEST_GATES_ONLY: '1' };
  return run('bash', [TEST_SH, 'packages/db'], { env: { ...base, ...env }, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: e.stdout + e.stderr }),
  );
}

describe('deploy/test.sh gates', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gates-'));
    await writeFile(path.join(dir, 'engine'), '');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a schema engine path that is wrong fails the run under CI=true, naming the path', async () => {
    const { code, output } = await gates({ CI: 'true', PRISMA_SCHEMA_ENGINE_BINARY: '/nonexistent' });
    expect(code).toBe(1);
    expect(output).toContain('migration drift check cannot run: no Prisma schema engine at /nonexistent');
    expect(output).not.toContain('gates checked');
  });

  it('outside CI the same gap is a skip that says why, and the run goes on', async () => {
    const { code, output } = await gates({ PRISMA_SCHEMA_ENGINE_BINARY: '/nonexistent' });
    expect(code).toBe(0);
    expect(output).toContain('migration drift check skipped: no Prisma schema engine at /nonexistent');
    expect(output).toContain('gates checked');
  });

  it('with the engine present, CI=true passes the gate', async () => {
    const { code, output } = await gates({ CI: 'true', PRISMA_SCHEMA_ENGINE_BINARY: path.join(dir, 'engine') });
    expect(output).not.toContain('skipped');
    expect(code).toBe(0);
  });
});

describe('skips (testing/src/skips.ts) and their report (testing/src/skip-reporter.ts)', () => {
  it('CI is CI=true or CI=1', () => {
    expect([isCi({ CI: 'true' }), isCi({ CI: '1' }), isCi({}), isCi({ CI: 'false' })]).toEqual([true, true, false, false]);
  });

  it('groups skipped cases by the reason in their title, leaves out those the name pattern did not select', () => {
    const file = {
      testFilePath: '/repo/apps/x.int.spec.ts',
      testResults: [
        { status: 'passed', fullName: 'x runs' },
        { status: 'pending', fullName: 'x mongodb [skipped: mongo:7 is not on this machine]' },
        { status: 'pending', fullName: 'x mongodb again [skipped: mongo:7 is not on this machine]' },
        { status: 'pending', fullName: 'x bare skip' },
        { status: 'pending', fullName: 'y other [skipped: needs root]' },
      ],
    };
    expect(summary(skipsOf(file, '/repo', '^x'))).toEqual([
      'Skipped: 3 cases, for 2 reasons:',
      '  mongo:7 is not on this machine (2):',
      '    apps/x.int.spec.ts: x mongodb',
      '    apps/x.int.spec.ts: x mongodb again',
      '  no reason given (skip through requires() of @slipway/testing/skips) (1):',
      '    apps/x.int.spec.ts: x bare skip',
    ]);
    expect(summary([])).toEqual(['Skipped: 0 cases.']);
  });
});
