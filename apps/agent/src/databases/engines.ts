import { DATABASE_ENGINE_FACTS, type DatabaseEngine } from '@slipway/contracts';

/**
 * The database engines behind one interface (pure: what a container of each engine looks like, how to ask it
 * whether it is ready, how to change its password). The runtime (databases.runtime.ts) does the Docker side; the
 * next issue (backups) adds `dump`/`load` here, run the same way as the probe (an exec of the engine's own client).
 *
 * Every engine's container gets, in the container:
 *   - its data folder (`databases/<id>/data` on the server) at `dataPath`;
 *   - `/slipway/tls` (read-only): `server.crt`, `server.key` (owned by the engine's uid, 0600: PostgreSQL refuses a
 *     key others can read), `server.pem` (both, for MongoDB), `ca.crt`;
 *   - `/slipway/conf` (read-only): the engine's config files (`files()`), owned by the engine's uid.
 * Secrets reach execs through their environment or stdin, never a command line. What the control plane knows too
 * (names, ports, accounts, official images, URLs) is in @slipway/contracts' facts, not here.
 */
export const TLS_DIR = '/slipway/tls';
export const CONF_DIR = '/slipway/conf';

export interface EngineContext {
  username: string;
  databaseName: string;
  password: string;
  memoryMb: number;
  cpuMillis: number;
}

/** A command run inside the container (argv), with its environment and stdin; `ok` judges its stdout. */
export interface ExecSpec {
  cmd: string[];
  env?: Record<string, string>;
  stdin?: string;
  ok?: (stdout: string) => boolean;
}

/** How the public listener refuses clients that do not start TLS before any byte reaches the engine. */
export type PublicGuard = 'postgres' | 'mysql' | 'tls';

export interface Engine {
  name: DatabaseEngine;
  /** Port on the private network (what `<slug>.internal` answers on). */
  port: number;
  /** Port in the container the public listener forwards to (TLS on it). */
  publicTarget: number;
  guard: PublicGuard;
  /** Where the data folder is mounted. */
  dataPath: string;
  /**
   * Capabilities kept after dropping all (the container layer adds no-new-privileges and a pids limit): the images'
   * entrypoints fix ownership of the data folder, then drop to the engine's user.
   */
  capabilities: string[];
  /** Owner of the TLS key and config files (the engine's user in the official images). */
  uid: number;
  gid: number;
  /** The engine's memory settings for a size (what `command` applies), for the README and tests. */
  memory(memoryMb: number): Record<string, string>;
  /**
   * The image's first initialisation is told not to fsync what it writes (PostgreSQL: `initdb --no-sync`, file after
   * file, the largest part of a create on a slow disk); the agent fsyncs the whole data folder in one parallel pass
   * once the engine answers, before the database counts as running (fsync-tree.ts).
   */
  initWithoutSync?: boolean;
  /** Environment of the container: only read by the images when the data folder is empty (first start). */
  env(ctx: EngineContext): Record<string, string>;
  /** Arguments after the image's entrypoint. */
  command(ctx: EngineContext): string[];
  /** Config files written into `/slipway/conf`. */
  files(ctx: EngineContext): Record<string, string>;
  /** An authenticated query through the engine's own client inside the container. */
  probe(ctx: EngineContext): ExecSpec;
  /** Applies a new password inside the live engine (run in order; each must exit 0). */
  rotate(ctx: EngineContext, next: string): ExecSpec[];
  /**
   * Has the live engine write what it holds in memory to its data folder (no password: the agent does not keep it), so
   * a move's last copy while it runs carries it and the stop has little left to write (decision 0037). Engines without
   * one are copied all the same; their stop writes more during the move's write gap.
   */
  flush?(ctx: Omit<EngineContext, 'password'>): ExecSpec;
}

/** What the official images' entrypoints need: chown the data folder, then switch to the engine's user. */
const ENTRYPOINT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'];

const mb = (n: number) => `${Math.max(1, Math.floor(n))}MB`;

/** Max connections scaled with memory (each costs a few MB in PostgreSQL/MySQL), between 20 and 200. */
const connectionsFor = (memoryMb: number) => Math.max(20, Math.min(200, Math.floor(memoryMb / 8)));

/** A SQL string literal (standard_conforming_strings: only quotes doubled). */
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** A MySQL string literal with backslash escapes. */
const mysqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const pgIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

export const postgres: Engine = {
  name: 'postgres',
  port: DATABASE_ENGINE_FACTS.postgres.port,
  publicTarget: 5432,
  guard: 'postgres',
  dataPath: '/var/lib/postgresql/data',
  capabilities: ENTRYPOINT_CAPABILITIES,
  uid: 999,
  gid: 999,
  memory: (memoryMb) => ({
    // A quarter for shared buffers, small per-query memory: the sum stays well under the cgroup limit.
    shared_buffers: mb(memoryMb / 4),
    effective_cache_size: mb(memoryMb / 2),
    maintenance_work_mem: mb(Math.min(256, memoryMb / 16)),
    work_mem: mb(Math.max(1, Math.min(16, memoryMb / 64))),
    max_connections: String(connectionsFor(memoryMb)),
  }),
  initWithoutSync: true,
  env: (ctx) => ({
    POSTGRES_USER: ctx.username,
    POSTGRES_DB: ctx.databaseName,
    POSTGRES_PASSWORD: ctx.password,
    PGDATA: '/var/lib/postgresql/data/pgdata',
    // Read by the entrypoint (ours and the official image's) on the first start only; see `initWithoutSync`.
    POSTGRES_INITDB_ARGS: '--no-sync',
    // initdb takes the default time zone from TZ when it is set; otherwise it scores every zone file of the image
    // against the system's clock (hundreds of files read) to find the one the container already has.
    TZ: 'Etc/UTC',
  }),
  command(ctx) {
    const settings: Record<string, string> = {
      ...this.memory(ctx.memoryMb),
      listen_addresses: '*',
      ssl: 'on',
      ssl_cert_file: `${TLS_DIR}/server.crt`,
      ssl_key_file: `${TLS_DIR}/server.key`,
      ssl_min_protocol_version: 'TLSv1.2',
      hba_file: `${CONF_DIR}/pg_hba.conf`,
      password_encryption: 'scram-sha-256',
    };
    // Options only: the image's entrypoint puts `postgres` in front (and initialises an empty data folder first).
    return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  },
  files: () => ({
    // Inside the container (the agent's execs) by socket; everyone else with a password. Public connections are
    // TLS-only: the public listener refuses a first message that is not an SSLRequest.
    'pg_hba.conf': ['local all all trust', 'host all all 0.0.0.0/0 scram-sha-256', 'host all all ::/0 scram-sha-256', ''].join('\n'),
  }),
  probe: (ctx) => ({
    cmd: ['psql', '-h', '127.0.0.1', '-U', ctx.username, '-d', ctx.databaseName, '-X', '-tAc', 'SELECT 1'],
    env: { PGPASSWORD: ctx.password, PGCONNECT_TIMEOUT: '3' },
    ok: (out) => out.trim() === '1',
  }),
  // A checkpoint writes the dirty shared buffers (up to shared_buffers) and recycles old WAL: otherwise the clean
  // shutdown does it inside the move's write gap. By socket (trust), as the database's superuser.
  flush: (ctx) => ({ cmd: ['psql', '-U', ctx.username, '-d', ctx.databaseName, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', 'CHECKPOINT'] }),
  rotate: (ctx, next) => [
    {
      cmd: ['psql', '-U', ctx.username, '-d', ctx.databaseName, '-X', '-v', 'ON_ERROR_STOP=1', '-q'],
      stdin: `ALTER ROLE ${pgIdent(ctx.username)} PASSWORD ${sqlString(next)};\n`,
    },
  ],
};

/** Engine `mysql`: the official mysql image or the MariaDB stand-in (same environment and client contract). */
export const mysql: Engine = {
  name: 'mysql',
  port: DATABASE_ENGINE_FACTS.mysql.port,
  publicTarget: 3306,
  guard: 'mysql',
  dataPath: '/var/lib/mysql',
  capabilities: ENTRYPOINT_CAPABILITIES,
  uid: 999,
  gid: 999,
  memory: (memoryMb) => ({
    // The buffer pool is most of MySQL's memory; what is left covers connections and the server itself.
    'innodb-buffer-pool-size': mb(Math.max(32, memoryMb * 0.4)).replace('MB', 'M'),
    'innodb-log-buffer-size': '8M',
    'key-buffer-size': '8M',
    'max-connections': String(connectionsFor(memoryMb)),
    'performance-schema': 'OFF',
  }),
  env: (ctx) => ({
    MYSQL_ROOT_PASSWORD: ctx.password,
    MYSQL_ROOT_HOST: 'localhost',
    MYSQL_DATABASE: ctx.databaseName,
    MYSQL_USER: ctx.username,
    MYSQL_PASSWORD: ctx.password,
  }),
  command(ctx) {
    const settings: Record<string, string> = {
      ...this.memory(ctx.memoryMb),
      'ssl-cert': `${TLS_DIR}/server.crt`,
      'ssl-key': `${TLS_DIR}/server.key`,
    };
    // Options only: the image's entrypoint puts its server (mysqld, mariadbd) in front.
    return [...Object.entries(settings).map(([k, v]) => `--${k}=${v}`), '--skip-name-resolve'];
  },
  files: () => ({}),
  probe: (ctx) => ({
    cmd: ['sh', '-c', 'if command -v mariadb >/dev/null; then exec mariadb "$@"; else exec mysql "$@"; fi', 'client', '-h127.0.0.1', '-u', ctx.username, '-D', ctx.databaseName, '-N', '-B', '-e', 'SELECT 1'],
    env: { MYSQL_PWD: ctx.password },
    ok: (out) => out.trim() === '1',
  }),
  rotate: (ctx, next) => [
    {
      cmd: ['sh', '-c', 'if command -v mariadb >/dev/null; then exec mariadb "$@"; else exec mysql "$@"; fi', 'client', '--protocol=socket', '-uroot'],
      env: { MYSQL_PWD: ctx.password },
      stdin: `ALTER USER ${mysqlString(ctx.username)}@'%' IDENTIFIED BY ${mysqlString(next)};\nALTER USER 'root'@'localhost' IDENTIFIED BY ${mysqlString(next)};\nFLUSH PRIVILEGES;\n`,
    },
  ],
};

/** Redis: plain on 6379 for the private network, TLS on 6380 for the public listener; the password in its config file. */
export const redis: Engine = {
  name: 'redis',
  port: DATABASE_ENGINE_FACTS.redis.port,
  publicTarget: 6380,
  guard: 'tls',
  dataPath: '/data',
  capabilities: ENTRYPOINT_CAPABILITIES,
  uid: 999,
  gid: 999,
  memory: (memoryMb) => ({
    // Three quarters for data: Redis' own overhead, copy-on-write of the append-only rewrite and buffers fit in the rest.
    maxmemory: `${Math.max(16, Math.floor(memoryMb * 0.75))}mb`,
    'maxmemory-policy': 'noeviction',
  }),
  env: () => ({}),
  command: () => [`${CONF_DIR}/redis.conf`],
  files(ctx) {
    const lines = [
      'bind * -::*',
      'protected-mode no',
      `port ${this.port}`,
      `tls-port ${this.publicTarget}`,
      `tls-cert-file ${TLS_DIR}/server.crt`,
      `tls-key-file ${TLS_DIR}/server.key`,
      `tls-ca-cert-file ${TLS_DIR}/ca.crt`,
      'tls-auth-clients no',
      'dir /data',
      'appendonly yes',
      'save 60 1000',
      ...Object.entries(this.memory(ctx.memoryMb)).map(([k, v]) => `${k} ${v}`),
      // The password is the default user's; the file is 0600, owned by the engine's user.
      `requirepass "${ctx.password.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
      '',
    ];
    return { 'redis.conf': lines.join('\n') };
  },
  probe: (ctx) => ({
    cmd: ['redis-cli', '-h', '127.0.0.1', '-p', '6379', '--no-auth-warning', 'PING'],
    env: { REDISCLI_AUTH: ctx.password },
    ok: (out) => out.trim() === 'PONG',
  }),
  rotate: (ctx, next) => [
    {
      // -x: the last argument (the new password) is read from stdin.
      cmd: ['redis-cli', '-h', '127.0.0.1', '-p', '6379', '--no-auth-warning', '-x', 'CONFIG', 'SET', 'requirepass'],
      env: { REDISCLI_AUTH: ctx.password },
      stdin: next,
      ok: (out) => out.trim() === 'OK',
    },
  ],
};

const mongoClient = (script: string, env: Record<string, string>): ExecSpec => ({
  cmd: ['mongosh', '--nodb', '--quiet', '--norc', '--file', '/dev/stdin'],
  env,
  stdin: script,
});

export const mongodb: Engine = {
  name: 'mongodb',
  port: DATABASE_ENGINE_FACTS.mongodb.port,
  publicTarget: 27017,
  guard: 'tls',
  dataPath: '/data/db',
  capabilities: ENTRYPOINT_CAPABILITIES,
  uid: 999,
  gid: 999,
  memory: (memoryMb) => ({
    // WiredTiger's cache (default 50 % of (RAM − 1 GB), read from the host) sized from the reservation instead.
    wiredTigerCacheSizeGB: String(Math.max(0.25, Math.round(((memoryMb - 256) / 1024) * 0.5 * 100) / 100)),
  }),
  env: (ctx) => ({
    MONGO_INITDB_ROOT_USERNAME: ctx.username,
    MONGO_INITDB_ROOT_PASSWORD: ctx.password,
    MONGO_INITDB_DATABASE: ctx.databaseName,
  }),
  command(ctx) {
    return [
      '--bind_ip_all',
      '--wiredTigerCacheSizeGB',
      this.memory(ctx.memoryMb).wiredTigerCacheSizeGB!,
      '--tlsMode',
      'preferTLS',
      '--tlsCertificateKeyFile',
      `${TLS_DIR}/server.pem`,
      '--tlsAllowConnectionsWithoutCertificates',
    ];
  },
  files: () => ({}),
  probe: (ctx) => ({
    ...mongoClient(
      "const c = connect('mongodb://' + encodeURIComponent(process.env.U) + ':' + encodeURIComponent(process.env.P) + '@127.0.0.1:27017/admin?directConnection=true'); print(c.runCommand({ ping: 1 }).ok);\n",
      { U: ctx.username, P: ctx.password },
    ),
    ok: (out) => out.trim().endsWith('1'),
  }),
  rotate: (ctx, next) => [
    mongoClient(
      "const c = connect('mongodb://' + encodeURIComponent(process.env.U) + ':' + encodeURIComponent(process.env.P) + '@127.0.0.1:27017/admin?directConnection=true'); c.changeUserPassword(process.env.U, process.env.N);\n",
      { U: ctx.username, P: ctx.password, N: next },
    ),
  ],
};

export const ENGINES: Record<DatabaseEngine, Engine> = { postgres, mysql, redis, mongodb };
