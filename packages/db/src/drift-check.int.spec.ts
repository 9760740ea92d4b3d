import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_SERVICES } from '@slipway/testing';
import { requires, schemaEngine } from '@slipway/testing/skips';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '../../..');
// Like deploy/test.sh: the check needs the Prisma schema engine (or its stand-in) to turn schema.prisma into SQL;
// CI must have it (under CI=true its absence fails).
const gate = schemaEngine(path.resolve(repoRoot));
const engine = gate.path;
const withEngine = requires(gate).describe;

/** Runs deploy/drift-check.sh against a copy of prisma/ changed by `change`; resolves to its exit code and output. */
async function driftCheck(change: (dir: string) => Promise<void>): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'drift-'));
  try {
    await cp(path.join(repoRoot, 'prisma'), dir, { recursive: true });
    await change(dir);
    const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: engine, DRIFT_DATABASE_URL: TEST_SERVICES.postgresAdminUrl };
    try {
      const { stdout, stderr } = await run('bash', [path.join(repoRoot, 'deploy/drift-check.sh'), dir], { env });
      return { code: 0, output: stdout + stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, output: err.stdout + err.stderr };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

withEngine('deploy/drift-check.sh (real PostgreSQL)', () => {
  it('passes on the committed schema and migrations', async () => {
    const { code, output } = await driftCheck(async () => {});
    expect(output).toMatch(/schema and migrations agree/);
    expect(code).toBe(0);
  });

  it('fails naming the column when the migration that adds it is missing', async () => {
    const { code, output } = await driftCheck(async (dir) => {
      await rename(path.join(dir, 'migrations/20261124214500_app_generation'), path.join(dir, 'app_generation.moved'));
    });
    expect(code).toBe(1);
    expect(output).toMatch(/missing from the migrations:\n\s+\+ column apps\.generation integer NOT NULL DEFAULT 0/);
  });

  it('fails naming the column when schema.prisma gains one without a migration', async () => {
    const { code, output } = await driftCheck(async (dir) => {
      const file = path.join(dir, 'schema.prisma');
      await writeFile(file, (await readFile(file, 'utf8')).replace(/^model App \{\n/m, 'model App {\n  driftProbe String? @map("drift_probe")\n'));
    });
    expect(code).toBe(1);
    expect(output).toMatch(/\+ column apps\.drift_probe text NULL/);
  });
});
