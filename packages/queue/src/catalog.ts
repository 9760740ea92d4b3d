import {
  BACKUP_PRUNE_EVERY_MS,
  BACKUP_SCHEDULE_EVERY_MS,
  type BackupRestorePayload,
  type BackupRunPayload,
  PLAN_SUSPEND_EXPIRED_EVERY_MS,
  DEPLOYMENT_PRUNE_LOGS_EVERY_MS,
  DOMAINS_SWEEP_EVERY_MS,
  type DomainCheckPayload,
  METRICS_COLLECT_EVERY_MS,
  METRICS_PRUNE_EVERY_MS,
  type DeploymentRunPayload,
  type GithubDeliveryPayload,
  type EmptyPayload,
  type JobName,
  type JobPayloads,
  type OperationPayload,
  type MovePayload,
} from '@slipway/core';
import type { JSONSchemaType } from 'ajv';

export type { EmptyPayload, JobName, JobPayloads, OperationPayload } from '@slipway/core';

/**
 * The job catalog: every job's queue, payload schema, tries and backoff, the row that owns it and its schedule, in
 * one place. The names and payload types are @slipway/core's `JobPayloads`; adding a job is one entry there, one
 * here, and its processor in apps/worker. The job id is always the id of the row the job belongs to.
 */
export interface JobDefinition<P> {
  queue: QueueName;
  payloadSchema: JSONSchemaType<P>;
  /** Tries in all (1 = no retry). A bad payload or a permanent error fails at once, whatever this says. */
  attempts: number;
  backoff?: { type: 'exponential' | 'fixed'; delay: number };
  /**
   * The row the job owns, named by the payload's id: when the job fails for good (last try, bad payload, stalled too
   * often) the worker fails that row with the reason, so no row stays in a running state.
   */
  owner: JobOwner;
  /** Repeatable jobs (BullMQ job schedulers): every so many ms, or a cron pattern (UTC). */
  schedule?: JobSchedule;
}

/** `backup`: the backup row (`backupId`); `restore`: the database a restore loads (`databaseId`). */
export type JobOwner = 'operation' | 'deployment' | 'backup' | 'restore' | 'move' | 'none';

/** The payload field naming the row each owner kind owns. */
const OWNER_ID: Record<Exclude<JobOwner, 'none'>, string> = { operation: 'operationId', deployment: 'deploymentId', backup: 'backupId', restore: 'databaseId', move: 'moveId' };
export type JobSchedule = { every: number } | { pattern: string };

export const QUEUE_NAMES = ['agent', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const operationPayload: JSONSchemaType<OperationPayload> = {
  type: 'object',
  properties: { operationId: { type: 'string', pattern: UUID } },
  required: ['operationId'],
  additionalProperties: false,
};
const emptyPayload = { type: 'object', additionalProperties: false } as unknown as JSONSchemaType<EmptyPayload>;
const deploymentRunPayload: JSONSchemaType<DeploymentRunPayload> = {
  type: 'object',
  properties: { deploymentId: { type: 'string', pattern: UUID } },
  required: ['deploymentId'],
  additionalProperties: false,
};

const githubDeliveryPayload: JSONSchemaType<GithubDeliveryPayload> = {
  type: 'object',
  properties: { deliveryId: { type: 'string', pattern: '^[A-Za-z0-9-]{1,100}$' } },
  required: ['deliveryId'],
  additionalProperties: false,
};
const domainCheckPayload: JSONSchemaType<DomainCheckPayload> = {
  type: 'object',
  properties: { domainId: { type: 'string', pattern: UUID } },
  required: ['domainId'],
  additionalProperties: false,
};
// Database backups (issue 13).
const backupRunPayload: JSONSchemaType<BackupRunPayload> = {
  type: 'object',
  properties: { backupId: { type: 'string', pattern: UUID }, nightTries: { type: 'array', items: { type: 'string', maxLength: 2000 }, maxItems: 100, nullable: true } },
  required: ['backupId'],
  additionalProperties: false,
};
const backupRestorePayload: JSONSchemaType<BackupRestorePayload> = {
  type: 'object',
  properties: {
    restoreId: { type: 'string', pattern: UUID },
    backupId: { type: 'string', pattern: UUID },
    databaseId: { type: 'string', pattern: UUID },
    target: { type: 'string', enum: ['new', 'same'] as const },
    preRestoreBackupId: { type: 'string', pattern: UUID, nullable: true },
    waited: { type: 'integer', minimum: 0, nullable: true },
  },
  required: ['restoreId', 'backupId', 'databaseId', 'target'],
  additionalProperties: false,
};

// A move of a workspace (issue 32): the move's own row.
const movePayload: JSONSchemaType<MovePayload> = {
  type: 'object',
  properties: { moveId: { type: 'string', pattern: UUID } },
  required: ['moveId'],
  additionalProperties: false,
};

// Jobs that own an Operation row: `{ operationId }` alone, the rest is read from the row.
const operationJob = (queue: QueueName, attempts: number, delay: number): JobDefinition<OperationPayload> => ({
  queue,
  payloadSchema: operationPayload,
  attempts,
  backoff: { type: 'exponential', delay },
  owner: 'operation',
});
const repeatable = (schedule: JobSchedule): JobDefinition<EmptyPayload> => ({ queue: 'maintenance', payloadSchema: emptyPayload, attempts: 1, owner: 'none', schedule });

export const JOB_CATALOG: { [N in JobName]: JobDefinition<JobPayloads[N]> } = {
  'agent.noop': operationJob('agent', 5, 500),
  'node.check-health': repeatable({ every: 15_000 }),
  // Apps are compared with their containers at least this often (config SLIPWAY_RECONCILE_INTERVAL_MS sets it).
  'reconcile.run': repeatable({ every: 30_000 }),
  // Retried, since every step is idempotent.
  'workspace.teardown': operationJob('maintenance', 5, 2_000),
  'plan.suspend-expired': repeatable({ every: PLAN_SUSPEND_EXPIRED_EVERY_MS }),
  // jobId = the deployment id. Transient failures (agent unreachable) retry; a rollout that fails does not.
  'deployment.run': { queue: 'agent', payloadSchema: deploymentRunPayload, attempts: 4, backoff: { type: 'exponential', delay: 1_000 }, owner: 'deployment' },
  'app.power': operationJob('agent', 5, 500),
  'app.teardown': operationJob('agent', 8, 2_000),
  // Each online server gets the routes of its running web apps (the agent also restores them itself).
  'routes.sync': repeatable({ every: 30_000 }),
  // Deployment logs past the retention (config.logs): the database's one unbounded table, bounded.
  'deployment.prune-logs': repeatable({ every: DEPLOYMENT_PRUNE_LOGS_EVERY_MS }),
  // A GitHub webhook delivery (issue 16), jobId `github-<delivery id>`: its row is the delivery, handled once.
  'github.delivery': { queue: 'maintenance', payloadSchema: githubDeliveryPayload, attempts: 5, backoff: { type: 'exponential', delay: 1_000 }, owner: 'none' },
  // Custom domains (issue 14): one domain's re-check (the domain row records the outcome; a server away retries),
  // and the sweep that queues due checks and gives each server its custom-domain routes.
  'domain.check': { queue: 'agent', payloadSchema: domainCheckPayload, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, owner: 'none' },
  'domains.sweep': repeatable({ every: DOMAINS_SWEEP_EVERY_MS }),
  // Each online server's closed metric minutes since its cursor, one batch each (config SLIPWAY_METRICS_COLLECT_INTERVAL_MS).
  'metrics.collect': repeatable({ every: METRICS_COLLECT_EVERY_MS }),
  // Metric minutes past 31 days.
  'metrics.prune': repeatable({ every: METRICS_PRUNE_EVERY_MS }),
  // Databases (issue 12): each job converges the row's desired state under the database's lock, so retries are safe.
  'database.converge': operationJob('agent', 5, 1_000),
  'database.rotate-password': operationJob('agent', 4, 1_000),
  'database.teardown': operationJob('agent', 8, 2_000),
  // Database backups (issue 13): the backup's own row records the outcome (the processor fails it on the last try);
  // only transient failures (agent unreachable) are tried again.
  // Backups own their rows (issue 27): a job failed for good fails the backup (or the restore's database) with the reason.
  'backup.run': { queue: 'agent', payloadSchema: backupRunPayload, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, owner: 'backup' },
  'backup.restore': { queue: 'agent', payloadSchema: backupRestorePayload, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, owner: 'restore' },
  'backup.verify': { queue: 'agent', payloadSchema: backupRunPayload, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, owner: 'backup' },
  'backup.schedule': repeatable({ every: BACKUP_SCHEDULE_EVERY_MS }),
  'backup.prune': repeatable({ every: BACKUP_PRUNE_EVERY_MS }),
  // A move of a workspace to another server (issue 32): its row records every step. Only waiting for the workspace's
  // lock is tried again; a move that fails ends its row failed with the reason, the workspace left on its source.
  'workspace.move': { queue: 'maintenance', payloadSchema: movePayload, attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, owner: 'move' },
};

export const JOB_NAMES = Object.keys(JOB_CATALOG) as JobName[];

export function isJobName(name: string): name is JobName {
  return Object.prototype.hasOwnProperty.call(JOB_CATALOG, name);
}

export function jobsOfQueue(queue: QueueName): JobName[] {
  return JOB_NAMES.filter((n) => JOB_CATALOG[n].queue === queue);
}

/** The id of the row a job owns, from its payload (null for jobs that own none). */
export function ownerOf(name: JobName, payload: unknown): { owner: Exclude<JobOwner, 'none'>; id: string } | null {
  const owner = JOB_CATALOG[name].owner;
  if (owner === 'none') return null;
  const id = (payload as Record<string, unknown> | null)?.[OWNER_ID[owner]];
  return typeof id === 'string' ? { owner, id } : null;
}
