import type { Db } from '../client';
import { PrismaAppJobStore } from './app-job.store';
import { PgResourceLocks } from './resource-locks';
import { PrismaBackupDestinationJobStore, PrismaBackupJobStore } from './backup.store';
import { PrismaDatabaseJobStore } from './database-job.store';
import { PrismaDeploymentJobStore } from './deployment-job.store';
import { PrismaDomainJobStore } from './domain-job.store';
import { PrismaLogRetentionStore } from './log-retention.store';
import { PrismaTeardownStore } from './teardown.store';
import { PrismaGithubJobStore } from './github.store';
import { PrismaWorkspaceBackupKeyStore } from './workspace-backup-key.store';
import { PrismaMoveStore, PrismaMoveWorkspaceStore } from './move.store';

/**
 * The job-side stores: keyed by the id of a row a job already holds (an app, a deployment, a deleted workspace), so
 * they take no workspace scope. Only the worker composes them (as Immich separates asset.repository from
 * asset-job.repository); the API gets `createRepositories` alone.
 */
export function createJobStores(db: Db) {
  return {
    apps: new PrismaAppJobStore(db),
    deployments: new PrismaDeploymentJobStore(db),
    teardown: new PrismaTeardownStore(db),
    logRetention: new PrismaLogRetentionStore(db),
    domains: new PrismaDomainJobStore(db),
    github: new PrismaGithubJobStore(db),
    databases: new PrismaDatabaseJobStore(db),
    backups: new PrismaBackupJobStore(db),
    workspaceBackupKeys: new PrismaWorkspaceBackupKeyStore(db),
    backupDestinations: new PrismaBackupDestinationJobStore(db),
    // Moves of workspaces between servers (issue 32).
    moves: new PrismaMoveStore(db),
    moveWorkspaces: new PrismaMoveWorkspaceStore(db),
  };
}

export type JobStores = ReturnType<typeof createJobStores>;
export { PgResourceLocks, PrismaAppJobStore, PrismaBackupDestinationJobStore, PrismaBackupJobStore, PrismaDatabaseJobStore, PrismaDeploymentJobStore, PrismaLogRetentionStore, PrismaTeardownStore, PrismaGithubJobStore, PrismaDomainJobStore, PrismaWorkspaceBackupKeyStore, PrismaMoveStore, PrismaMoveWorkspaceStore };
