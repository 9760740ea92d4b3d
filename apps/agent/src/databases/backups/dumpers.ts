/**
 * How each engine is dumped and loaded, keyed by engine name (pure: argv, environment and stdin of commands run
 * inside the database's own container, so the dump tool's version is the server's). Credentials go through the
 * environment (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH) or stdin, never argv.
 *
 * - postgres: `pg_dump --format=custom` (restored with `pg_restore`, checked with `pg_restore --file=/dev/null`: every block read);
 * - mysql: `mariadb-dump`/`mysqldump --single-transaction` with routines, triggers and events, of ONE database
 *   without `--databases`: the dump carries no `CREATE DATABASE`/`USE <name>`, so it loads into whichever database
 *   it is fed to and can never overwrite the original (a peer's restore "into another database" did);
 * - redis: an RDB snapshot taken with `BGSAVE` and read from the data folder inside the container, loaded
 *   by the server at start with the append-only file turned off, then rewritten as the new AOF (backups.runtime.ts);
 * - mongodb: not yet (its image is not on the platform's servers): `engine_unavailable` with the reason.
 */
import type { DatabaseEngine } from '@slipway/contracts';

export interface BackupContext {
  username: string;
  databaseName: string;
  password: string;
}

export interface CommandSpec {
  cmd: string[];
  env?: Record<string, string>;
  stdin?: string;
  ok?: (stdout: string) => boolean;
}

export interface Dumper {
  /** The backup file's extension (after `<backupId>.`) and what it is, for the README and the download's name. */
  extension: string;
  format: string;
  /** The dump, written to stdout. */
  dump(ctx: BackupContext): CommandSpec;
  /** The engine writes a snapshot first (redis: BGSAVE) that `dump` then reads. */
  snapshot?: boolean;
  /**
   * `sql`: the live database is emptied (`prepare`: connections cut, database dropped and made again, credentials
   * untouched) and the file is fed to `load` on stdin. `file`: the engine loads the file itself at start (redis).
   */
  restore: { mode: 'sql'; prepare(ctx: BackupContext): CommandSpec[]; load(ctx: BackupContext): CommandSpec } | { mode: 'file' };
  /** A check inside the container fed the file on stdin (exit 0 and `ok`), or null: the agent checks the bytes itself. */
  verifyCommand(ctx: BackupContext): CommandSpec | null;
}

const pgIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const mysqlIdent = (s: string) => `\`${s.replace(/`/g, '``')}\``;
const mysqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** MariaDB images have `mariadb`/`mariadb-dump`, MySQL ones `mysql`/`mysqldump`: whichever is there. */
const either = (mariadb: string, mysql: string) => ['sh', '-c', `if command -v ${mariadb} >/dev/null; then exec ${mariadb} "$@"; else exec ${mysql} "$@"; fi`, mariadb];

export const postgresDumper: Dumper = {
  extension: 'pgdump',
  format: 'pg_dump custom format',
  dump: (ctx) => ({
    // Over the container's socket (trust for local connections); the password is set anyway for images that ask.
    // Uncompressed: gzip inside pg_dump runs at 10-35 MB/s on the engine's CPU budget, against 200 MB/s without
    // (docs/decisions/0017); the file is about the size of the data.
    cmd: ['pg_dump', '-U', ctx.username, '-d', ctx.databaseName, '--format=custom', '--compress=0', '--no-owner', '--no-acl'],
    env: { PGPASSWORD: ctx.password },
  }),
  restore: {
    mode: 'sql',
    prepare: (ctx) => [
      {
        // Every other connection cut (FORCE), then the database made again empty; roles (credentials) are the cluster's
        // and stay. Statements one by one: DROP DATABASE cannot run inside a transaction.
        cmd: ['psql', '-U', ctx.username, '-d', 'postgres', '-X', '-q', '-v', 'ON_ERROR_STOP=1'],
        env: { PGPASSWORD: ctx.password },
        stdin: [
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${sqlString(ctx.databaseName)} AND pid <> pg_backend_pid();`,
          `DROP DATABASE IF EXISTS ${pgIdent(ctx.databaseName)} WITH (FORCE);`,
          `CREATE DATABASE ${pgIdent(ctx.databaseName)} OWNER ${pgIdent(ctx.username)};`,
          '',
        ].join('\n'),
      },
    ],
    load: (ctx) => ({
      cmd: ['pg_restore', '-U', ctx.username, '-d', ctx.databaseName, '--no-owner', '--no-acl', '--exit-on-error'],
      env: { PGPASSWORD: ctx.password },
    }),
  },
  // The whole archive read and every data block decompressed into a script thrown away: a cut or damaged archive fails.
  verifyCommand: () => ({ cmd: ['pg_restore', '--file=/dev/null'] }),
};

export const mysqlDumper: Dumper = {
  extension: 'sql',
  format: 'SQL (mariadb-dump / mysqldump), one database, no USE',
  dump: (ctx) => ({
    // root over the socket (routines and events need more than the database's own user may have).
    cmd: [
      ...either('mariadb-dump', 'mysqldump'),
      '--protocol=socket',
      '-uroot',
      '--single-transaction',
      '--routines',
      '--triggers',
      '--events',
      '--hex-blob',
      '--no-tablespaces',
      '--default-character-set=utf8mb4',
      // The database as a plain argument, never `--databases`: no CREATE DATABASE, no USE.
      ctx.databaseName,
    ],
    env: { MYSQL_PWD: ctx.password },
  }),
  restore: {
    mode: 'sql',
    prepare: (ctx) => [
      {
        // The database's user's sessions are killed first (mysqlSessions, in the runtime), then the database is made
        // again; grants are kept by MySQL/MariaDB across DROP/CREATE DATABASE (they live in mysql.db).
        cmd: [...either('mariadb', 'mysql'), '--protocol=socket', '-uroot'],
        env: { MYSQL_PWD: ctx.password },
        stdin: [
          `DROP DATABASE IF EXISTS ${mysqlIdent(ctx.databaseName)};`,
          `CREATE DATABASE ${mysqlIdent(ctx.databaseName)} CHARACTER SET utf8mb4;`,
          '',
        ].join('\n'),
      },
    ],
    load: (ctx) => ({
      cmd: [...either('mariadb', 'mysql'), '--protocol=socket', '-uroot', '--default-character-set=utf8mb4', ctx.databaseName],
      env: { MYSQL_PWD: ctx.password },
    }),
  },
  verifyCommand: () => null,
};

export const redisDumper: Dumper = {
  extension: 'rdb',
  format: 'Redis RDB snapshot',
  // A BGSAVE first (backups.runtime.ts waits for it: `rdb_saves` grows, no save running, last status ok), then the
  // file it wrote, read whole: Redis renames a finished snapshot into place, so an automatic save meanwhile cannot
  // cut it. (`redis-cli --rdb -` leaves the diskless transfer's EOF marker at the end of a pipe: not used.)
  snapshot: true,
  dump: () => ({ cmd: ['cat', '/data/dump.rdb'] }),
  restore: { mode: 'file' },
  verifyCommand: () => null,
};

export const DUMPERS: Partial<Record<DatabaseEngine, Dumper>> = { postgres: postgresDumper, mysql: mysqlDumper, redis: redisDumper };

/** The connection ids of a MySQL user (killed before its database is dropped and made again). */
export const mysqlSessions = (ctx: BackupContext): CommandSpec => ({
  cmd: [...either('mariadb', 'mysql'), '--protocol=socket', '-uroot', '-N', '-B', '-e', `SELECT id FROM information_schema.processlist WHERE user = ${mysqlString(ctx.username)}`],
  env: { MYSQL_PWD: ctx.password },
});

/** Redis: whether an AOF rewrite (after `CONFIG SET appendonly yes`) is done. */
export const redisPersistence = (ctx: BackupContext): CommandSpec => ({
  cmd: ['redis-cli', '-h', '127.0.0.1', '-p', '6379', '--no-auth-warning', 'INFO', 'persistence'],
  env: { REDISCLI_AUTH: ctx.password },
});

export const redisCommand = (ctx: BackupContext, ...args: string[]): CommandSpec => ({
  cmd: ['redis-cli', '-h', '127.0.0.1', '-p', '6379', '--no-auth-warning', ...args],
  env: { REDISCLI_AUTH: ctx.password },
});
