export { createDb, type Db } from './client';
export { migrate, MigrationError, MIGRATIONS_DIR } from './migrate';
export * from './generated/client';
export { createRepositories, type Repositories } from './repositories';
export { createSqlPool, type SqlPool } from './sql-pool';
export * from './agents';
export { createJobStores, PgAppLocks, type JobStores } from './jobs';
export { databaseFigures, type DatabaseFigures } from './figures';
