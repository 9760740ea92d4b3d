// Every job's name and payload type, in one place. packages/queue registers each in its catalog (queue, payload
// schema, retries, the row that owns it, its schedule); apps/worker gives each a processor. The job id is always
// the id of the row the job belongs to, so a job is never queued twice.

// Type aliases, not interfaces: a payload is also a plain Record<string, unknown>.

/** Jobs that own an Operation row carry its id alone and read the rest from the row (OperationRunner). */
export type OperationPayload = {
  operationId: string;
};
/** Jobs that own a deployment row (the deployment runner). */
export type DeploymentRunPayload = {
  deploymentId: string;
};
/** Repeatable jobs: nothing but their name. */
export type EmptyPayload = Record<string, never>;

export const NOOP_JOB = 'agent.noop';
export const NODE_HEALTH_JOB = 'node.check-health';
export const RECONCILE_JOB = 'reconcile.run';
/** Tears down a deleted workspace (the workspace is the Operation row's). */
export const WORKSPACE_TEARDOWN_JOB = 'workspace.teardown';
/** Repeatable: suspends workspaces whose grace period ended without a paid plan. */
export const PLAN_SUSPEND_EXPIRED_JOB = 'plan.suspend-expired';
export const PLAN_SUSPEND_EXPIRED_EVERY_MS = 10 * 60 * 1000;
export const DEPLOYMENT_RUN_JOB = 'deployment.run';
/** Start, stop or restart an app (the app and the action are in the Operation row's payload). */
export const APP_POWER_JOB = 'app.power';
/** Removes what a deleted app left on its server. */
export const APP_TEARDOWN_JOB = 'app.teardown';
export const ROUTES_SYNC_JOB = 'routes.sync';
/** Repeatable: removes the build/deploy logs of deployments past the retention (newest N per app, and days). */
export const DEPLOYMENT_PRUNE_LOGS_JOB = 'deployment.prune-logs';
export const DEPLOYMENT_PRUNE_LOGS_EVERY_MS = 60 * 60 * 1000;

/** A GitHub webhook delivery to act on (issue 16); the job id is `github-<delivery id>`. */
export type GithubDeliveryPayload = {
  deliveryId: string;
};
export const GITHUB_DELIVERY_JOB = 'github.delivery';
/** Re-checks one custom domain's DNS from its app's server (issue 14); job id `domain-<id>-<due time>`. */
export const DOMAIN_CHECK_JOB = 'domain.check';
export type DomainCheckPayload = {
  domainId: string;
};
/** Repeatable: queues due domain checks, removes deleted apps' domains, syncs custom-domain routes and certificate states. */
export const DOMAINS_SWEEP_JOB = 'domains.sweep';
export const DOMAINS_SWEEP_EVERY_MS = 60_000;
/** Repeatable: every online server's closed metric minutes since its cursor, stored in one batch (issue 15). */
export const METRICS_COLLECT_JOB = 'metrics.collect';
export const METRICS_COLLECT_EVERY_MS = 60 * 1000;
/** Repeatable: metric minutes older than 31 days. */
export const METRICS_PRUNE_JOB = 'metrics.prune';
export const METRICS_PRUNE_EVERY_MS = 60 * 60 * 1000;
/** Databases (issue 12): brings a database's container to its row's desired state (create, start, stop, resize, public access). */
export const DATABASE_CONVERGE_JOB = 'database.converge';
/** Applies the new password (sealed in the Operation row's payload) inside the running engine. */
export const DATABASE_ROTATE_JOB = 'database.rotate-password';
/** Erases a deleted database's container and data, then its row. */
export const DATABASE_TEARDOWN_JOB = 'database.teardown';

/** Database backups (issue 13): one backup (jobId = the backup id); its row is failed when the job fails for good. */
export const BACKUP_RUN_JOB = 'backup.run';
/** A restore of a backup into a new database or the same one (jobId = `restore-<restore id>`). */
export const BACKUP_RESTORE_JOB = 'backup.restore';
/** Checks a completed backup restores (jobId = `verify-<backup id>`). */
export const BACKUP_VERIFY_JOB = 'backup.verify';
/** Repeatable: creates the night's scheduled backups that are due (each database at its slot of the window). */
export const BACKUP_SCHEDULE_JOB = 'backup.schedule';
export const BACKUP_SCHEDULE_EVERY_MS = 5 * 60 * 1000;
/** Repeatable: removes expired (and deleted) backups' files and rows. */
export const BACKUP_PRUNE_JOB = 'backup.prune';
export const BACKUP_PRUNE_EVERY_MS = 60 * 60 * 1000;

export type BackupRunPayload = {
  backupId: string;
  /**
   * backup.run of a nightly backup tried again within its window (issue 33): what each earlier try of the night
   * failed with (`<time>: <reason>`), oldest first; this try is number `nightTries.length + 1`.
   */
  nightTries?: string[];
};
export type BackupRestorePayload = {
  restoreId: string;
  backupId: string;
  /** The database loaded: the same one, or the new one made for the restore. */
  databaseId: string;
  target: 'new' | 'same';
  /** target same: the backup of the state before the restore (made first by this job). */
  preRestoreBackupId?: string;
  /** target new: how many times the job was queued again to wait for the new database to run. */
  waited?: number;
};

/** Moves a workspace to another server (issue 32); the job id is the move's id (its `moves` row). */
export const WORKSPACE_MOVE_JOB = 'workspace.move';
export type MovePayload = {
  moveId: string;
};

/** The payload type of each job. */
export interface JobPayloads {
  [NOOP_JOB]: OperationPayload;
  [NODE_HEALTH_JOB]: EmptyPayload;
  [RECONCILE_JOB]: EmptyPayload;
  [WORKSPACE_TEARDOWN_JOB]: OperationPayload;
  [PLAN_SUSPEND_EXPIRED_JOB]: EmptyPayload;
  [DEPLOYMENT_RUN_JOB]: DeploymentRunPayload;
  [APP_POWER_JOB]: OperationPayload;
  [APP_TEARDOWN_JOB]: OperationPayload;
  [ROUTES_SYNC_JOB]: EmptyPayload;
  [DEPLOYMENT_PRUNE_LOGS_JOB]: EmptyPayload;
  [GITHUB_DELIVERY_JOB]: GithubDeliveryPayload;
  [DOMAIN_CHECK_JOB]: DomainCheckPayload;
  [DOMAINS_SWEEP_JOB]: EmptyPayload;
  [METRICS_COLLECT_JOB]: EmptyPayload;
  [METRICS_PRUNE_JOB]: EmptyPayload;
  [DATABASE_CONVERGE_JOB]: OperationPayload;
  [DATABASE_ROTATE_JOB]: OperationPayload;
  [DATABASE_TEARDOWN_JOB]: OperationPayload;
  [BACKUP_RUN_JOB]: BackupRunPayload;
  [BACKUP_RESTORE_JOB]: BackupRestorePayload;
  [BACKUP_VERIFY_JOB]: BackupRunPayload;
  [BACKUP_SCHEDULE_JOB]: EmptyPayload;
  [BACKUP_PRUNE_JOB]: EmptyPayload;
  [WORKSPACE_MOVE_JOB]: MovePayload;
}
export type JobName = keyof JobPayloads;

/** The jobs whose row is an Operation: the OperationRunner runs them, the reconciler re-queues them. */
export const OPERATION_JOBS = [
  NOOP_JOB,
  WORKSPACE_TEARDOWN_JOB,
  APP_POWER_JOB,
  APP_TEARDOWN_JOB,
  DATABASE_CONVERGE_JOB,
  DATABASE_ROTATE_JOB,
  DATABASE_TEARDOWN_JOB,
] as const satisfies readonly JobName[];
export type OperationJobName = (typeof OPERATION_JOBS)[number];
export const isOperationJob = (name: string): name is OperationJobName => (OPERATION_JOBS as readonly string[]).includes(name);
