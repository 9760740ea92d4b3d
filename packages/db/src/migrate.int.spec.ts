import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '@slipway/testing';
import { Client } from 'pg';
import { migrate, MigrationError } from './migrate';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '../../..');

describe('migrate (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(() => db.drop());

  async function query<T extends object>(sql: string): Promise<T[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<T>(sql)).rows;
    } finally {
      await c.end();
    }
  }

  it('finds the committed migrations already applied to the template and applies nothing twice', async () => {
    const result = await migrate(db.url);
    expect(result.applied).toEqual([]);
    expect(result.alreadyApplied).toBeGreaterThan(0);
    const tables = await query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(['users', 'workspaces', 'nodes', 'operations']));
  });

  it('applies new migrations in order, refuses an edited one, and records nothing for a failing one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    const write = async (name: string, sql: string) => {
      await mkdir(path.join(dir, name), { recursive: true });
      await writeFile(path.join(dir, name, 'migration.sql'), sql);
    };
    await write('001_a', 'CREATE TABLE t_a (id int);');
    await write('002_b', 'ALTER TABLE t_a ADD COLUMN b text;');
    expect((await migrate(db.url, dir)).applied).toEqual(['001_a', '002_b']);
    expect((await migrate(db.url, dir)).applied).toEqual([]);

    await write('001_a', 'CREATE TABLE t_a (id bigint);');
    await expect(migrate(db.url, dir)).rejects.toThrow(/001_a was edited after it was applied/);
    await write('001_a', 'CREATE TABLE t_a (id int);');

    await write('003_bad', 'CREATE TABLE t_c (id int); SELECT no_such_function();');
    await expect(migrate(db.url, dir)).rejects.toBeInstanceOf(MigrationError);
    const rows = await query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE tablename = 't_c'`);
    expect(rows[0]!.n).toBe('0');
    const recorded = await query<{ migration_name: string }>(`SELECT migration_name FROM "_prisma_migrations" WHERE migration_name = '003_bad'`);
    expect(recorded).toEqual([]);
  });

  it('the db:migrate command exits non-zero with the reason when it cannot migrate', async () => {
    const bad = new URL(db.url);
    bad.port = '1';
    const failure = await run('pnpm', ['-s', 'db:migrate'], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: bad.toString() } }).catch((e) => e);
    expect(failure.code).not.toBe(0);
    expect(String(failure.stderr)).toMatch(/ECONNREFUSED/);

    const ok = await run('pnpm', ['-s', 'db:migrate'], { cwd: repoRoot, env: { ...process.env, DATABASE_URL: db.url } });
    expect(ok.stdout).toMatch(/0 applied, \d+ already applied/);
  });
});
