import { randomBytes } from 'node:crypto';

export const DATABASE_ENGINE_NAMES = ['postgres', 'mysql', 'redis', 'mongodb'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINE_NAMES)[number];
export const isDatabaseEngine = (e: string): e is DatabaseEngine => (DATABASE_ENGINE_NAMES as readonly string[]).includes(e);

/** What the control plane knows of an engine: versions it accepts, the port, the account and the URL it hands out. */
export interface EngineSpec {
  engine: DatabaseEngine;
  /** Accepted versions; the first is the default. */
  versions: readonly string[];
  /** The port on the private network. */
  port: number;
  /** The account the platform makes (Redis: the default user, which `requirepass` guards). */
  username: string;
  /** The database the URL names (Redis: the logical database number). */
  databaseName: string;
  /** The variable `connect` writes by default. */
  variable: string;
  /** The URL scheme. */
  scheme: string;
  /** The scheme of the public URL (TLS on the wire). */
  publicScheme: string;
}

/**
 * The version catalog: the major lines a database may ask for; the first is the default. The agent runs one image per
 * engine (settings SLIPWAY_IMAGE_POSTGRES, …) and records the version on the container: the defaults are the lines
 * of the images the platform installs (deploy/images: PostgreSQL 15, MariaDB 10.11 serving `mysql` as 8.0 clients
 * see it, Redis 7; MongoDB 7 from the official image). An operator who sets another image states its line here.
 */
export const ENGINES: Record<DatabaseEngine, EngineSpec> = {
  postgres: { engine: 'postgres', versions: ['15', '16', '17'], port: 5432, username: 'slipway', databaseName: 'app', variable: 'DATABASE_URL', scheme: 'postgresql', publicScheme: 'postgresql' },
  mysql: { engine: 'mysql', versions: ['8.0', '8.4'], port: 3306, username: 'slipway', databaseName: 'app', variable: 'DATABASE_URL', scheme: 'mysql', publicScheme: 'mysql' },
  redis: { engine: 'redis', versions: ['7', '8'], port: 6379, username: 'default', databaseName: '0', variable: 'REDIS_URL', scheme: 'redis', publicScheme: 'rediss' },
  mongodb: { engine: 'mongodb', versions: ['7.0', '8.0'], port: 27017, username: 'slipway', databaseName: 'app', variable: 'MONGODB_URL', scheme: 'mongodb', publicScheme: 'mongodb' },
};

/** A random password: 32 random bytes as base64url (43 characters: letters, digits, `-` and `_`). */
export const newDatabasePassword = (): string => randomBytes(32).toString('base64url');

export interface UrlParts {
  engine: DatabaseEngine;
  host: string;
  port: number;
  username: string;
  password: string;
  databaseName: string;
}

/**
 * The connection URL, every part percent-encoded (a password or a name with `@`, `/`, `:` or `%` stays one part).
 * `tls`: the public URL, which requires TLS (`sslmode=verify-full`, `ssl-mode=VERIFY_IDENTITY`, `rediss://`,
 * `tls=true`); the client trusts the CA certificate from GET /v1/database-ca.pem.
 */
export function connectionUrl(p: UrlParts, tls = false): string {
  const spec = ENGINES[p.engine];
  const user = encodeURIComponent(p.username);
  const pass = encodeURIComponent(p.password);
  const host = p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : p.host;
  const db = encodeURIComponent(p.databaseName);
  const scheme = tls ? spec.publicScheme : spec.scheme;
  const base = `${scheme}://${user}:${pass}@${host}:${p.port}/${db}`;
  if (!tls) return p.engine === 'mongodb' ? `${base}?authSource=admin` : base;
  switch (p.engine) {
    case 'postgres':
      return `${base}?sslmode=verify-full`;
    case 'mysql':
      return `${base}?ssl-mode=VERIFY_IDENTITY`;
    case 'redis':
      return base;
    case 'mongodb':
      return `${base}?authSource=admin&tls=true`;
  }
}
