/**
 * What the control plane and the agent both know of each database engine, in one place: the names, the versions a
 * database may ask for, the port on the private network, the account and database the platform makes, the image the
 * agent runs when it is given none, and the connection URL handed out. The agent's own knowledge of running an
 * engine (data path, command, config files, probes) stays in `apps/agent/src/databases/engines.ts`.
 */
export const DATABASE_ENGINES = ['postgres', 'mysql', 'redis', 'mongodb'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];
export const isDatabaseEngine = (e: string): e is DatabaseEngine => (DATABASE_ENGINES as readonly string[]).includes(e);

export interface DatabaseEngineFacts {
  engine: DatabaseEngine;
  /** Accepted versions; the first is the default. */
  versions: readonly string[];
  /** The port on the private network (what `<slug>.internal` answers on). */
  port: number;
  /** The account the platform makes (Redis: the default user, which `requirepass` guards). */
  username: string;
  /** The database the URL names (Redis: the logical database number). */
  databaseName: string;
  /** The official image, what the agent runs when no SLIPWAY_IMAGE_* setting names another. */
  officialImage: string;
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
export const DATABASE_ENGINE_FACTS: Record<DatabaseEngine, DatabaseEngineFacts> = {
  postgres: { engine: 'postgres', versions: ['15', '16', '17'], port: 5432, username: 'slipway', databaseName: 'app', officialImage: 'postgres:16', variable: 'DATABASE_URL', scheme: 'postgresql', publicScheme: 'postgresql' },
  mysql: { engine: 'mysql', versions: ['8.0', '8.4'], port: 3306, username: 'slipway', databaseName: 'app', officialImage: 'mysql:8.0', variable: 'DATABASE_URL', scheme: 'mysql', publicScheme: 'mysql' },
  redis: { engine: 'redis', versions: ['7', '8'], port: 6379, username: 'default', databaseName: '0', officialImage: 'redis:7', variable: 'REDIS_URL', scheme: 'redis', publicScheme: 'rediss' },
  mongodb: { engine: 'mongodb', versions: ['7.0', '8.0'], port: 27017, username: 'slipway', databaseName: 'app', officialImage: 'mongo:7', variable: 'MONGODB_URL', scheme: 'mongodb', publicScheme: 'mongodb' },
};

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
  const spec = DATABASE_ENGINE_FACTS[p.engine];
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
