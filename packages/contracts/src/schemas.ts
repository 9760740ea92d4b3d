// Every schema of the API by name (the package's `schemas` export; types.ts derives its types from them).
// JSON Schemas (2020-12, as OpenAPI 3.1 uses), written `as const` so that TypeScript types derive from them and ajv
// validates with the very same objects.
export * from './common';
export * from './resources/apps';
export * from './resources/auth';
export * from './resources/deployments';
export * from './resources/files';
export * from './resources/members';
export * from './resources/meta';
export * from './resources/nodes';
export * from './resources/plans';
export * from './resources/tokens';
export * from './resources/workspaces';
export * from './resources/domains';
export * from './resources/metrics';
export * from './resources/databases';
export * from './resources/backups';
export * from './resources/backup-destinations';
