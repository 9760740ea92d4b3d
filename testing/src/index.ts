export { adminQuery, createTestDatabase, type TestDatabase } from './database';
export { databaseUrl, TEST_SERVICES } from './services';
export { getWithHost, requestFresh, type HostResponse } from './http';
export { ApiClient, type ApiResponse, type RequestOptions } from './api-client';
export { createWorkspace, insertNode, RecordingJobQueue, signUp, uniqueEmail, type SignedUp } from './factories';
