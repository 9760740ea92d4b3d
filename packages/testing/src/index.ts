export { createTestDatabase, type TestDatabase } from './database';
export { databaseUrl, TEST_SERVICES } from './services';
export { getWithHost, type HostResponse } from './http';
