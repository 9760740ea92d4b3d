export { createDb, type Db } from './client';
export { migrate, MigrationError, MIGRATIONS_DIR } from './migrate';
export * from './generated/client';
export { createRepositories, type Repositories } from './repositories';
export { createSqlPool, type PoolOptions, type SqlPool } from './sql-pool';
export { isDatabaseUnavailable } from './availability';
export * from './agents';
export { createJobStores, PgAppLocks, type JobStores } from './jobs';
export { databaseFigures, type DatabaseFigures } from './figures';
