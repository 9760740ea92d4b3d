import {
  PLAN_SUSPEND_EXPIRED_EVERY_MS,
  type AppPowerPayload,
  type AppTeardownPayload,
  type DeploymentRunPayload,
  type WorkspaceTeardownPayload,
} from '@slipway/core';
import type { JSONSchemaType } from 'ajv';

/**
 * The job catalog: every job's name (`domain.verb`), queue, payload schema, tries and backoff, in one
 * place. Adding a job is one entry here (plus its processor in apps/worker). The job id is always the
 * id of the row the job belongs to (`Operation.id`), so a job is never queued twice.
 */
export interface JobDefinition<P> {
  queue: QueueName;
  payloadSchema: JSONSchemaType<P>;
  /** Tries in all (1 = no retry). A bad payload or a permanent error fails at once, whatever this says. */
  attempts: number;
  backoff?: { type: 'exponential' | 'fixed'; delay: number };
  /** Repeatable jobs: how often, unless the worker's settings say otherwise. */
  everyMs?: number;
}

export const QUEUE_NAMES = ['agent', 'maintenance'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

export interface OperationPayload {
  operationId: string;
}
export type EmptyPayload = Record<string, never>;

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const operationPayload: JSONSchemaType<OperationPayload> = {
  type: 'object',
  properties: { operationId: { type: 'string', pattern: UUID } },
  required: ['operationId'],
  additionalProperties: false,
};
const emptyPayload = { type: 'object', additionalProperties: false } as unknown as JSONSchemaType<EmptyPayload>;
const workspaceTeardownPayload: JSONSchemaType<WorkspaceTeardownPayload> = {
  type: 'object',
  properties: { operationId: { type: 'string', pattern: UUID }, workspaceId: { type: 'string', pattern: UUID, nullable: true } },
  required: ['operationId'],
  additionalProperties: false,
};

const deploymentRunPayload: JSONSchemaType<DeploymentRunPayload> = {
  type: 'object',
  properties: { deploymentId: { type: 'string', pattern: UUID } },
  required: ['deploymentId'],
  additionalProperties: false,
};
const appPowerPayload: JSONSchemaType<AppPowerPayload> = {
  type: 'object',
  properties: {
    operationId: { type: 'string', pattern: UUID },
    workspaceId: { type: 'string', pattern: UUID },
    appId: { type: 'string', pattern: UUID },
    action: { type: 'string', enum: ['start', 'stop', 'restart'] },
  },
  required: ['operationId', 'workspaceId', 'appId', 'action'],
  additionalProperties: false,
};
const appTeardownPayload: JSONSchemaType<AppTeardownPayload> = {
  type: 'object',
  properties: { operationId: { type: 'string', pattern: UUID }, workspaceId: { type: 'string', pattern: UUID }, appId: { type: 'string', pattern: UUID } },
  required: ['operationId', 'workspaceId', 'appId'],
  additionalProperties: false,
};

/** Payload type of each job, checked against its schema by the compiler (JSONSchemaType). */
export interface JobPayloads {
  'agent.noop': OperationPayload;
  'node.check-health': EmptyPayload;
  'reconcile.run': EmptyPayload;
  'workspace.teardown': WorkspaceTeardownPayload;
  'plan.suspend-expired': EmptyPayload;
  'deployment.run': DeploymentRunPayload;
  'app.power': AppPowerPayload;
  'app.teardown': AppTeardownPayload;
  'routes.sync': EmptyPayload;
}
export type JobName = keyof JobPayloads;

export const JOB_CATALOG: { [N in JobName]: JobDefinition<JobPayloads[N]> } = {
  'agent.noop': { queue: 'agent', payloadSchema: operationPayload, attempts: 5, backoff: { type: 'exponential', delay: 500 } },
  'node.check-health': { queue: 'maintenance', payloadSchema: emptyPayload, attempts: 1, everyMs: 15_000 },
  'reconcile.run': { queue: 'maintenance', payloadSchema: emptyPayload, attempts: 1, everyMs: 60_000 },
  // jobId = the Operation row recorded with the deletion; retried, since every step is idempotent.
  'workspace.teardown': { queue: 'maintenance', payloadSchema: workspaceTeardownPayload, attempts: 5, backoff: { type: 'exponential', delay: 2_000 } },
  'plan.suspend-expired': { queue: 'maintenance', payloadSchema: emptyPayload, attempts: 1, everyMs: PLAN_SUSPEND_EXPIRED_EVERY_MS },
  // jobId = the deployment id. Transient failures (agent unreachable) retry; a rollout that fails does not.
  'deployment.run': { queue: 'agent', payloadSchema: deploymentRunPayload, attempts: 4, backoff: { type: 'exponential', delay: 1_000 } },
  // jobId = the Operation row of the request.
  'app.power': { queue: 'agent', payloadSchema: appPowerPayload, attempts: 5, backoff: { type: 'exponential', delay: 500 } },
  'app.teardown': { queue: 'agent', payloadSchema: appTeardownPayload, attempts: 8, backoff: { type: 'exponential', delay: 2_000 } },
  // Repeatable: each online server gets the routes of its running web apps (the agent also restores them itself).
  'routes.sync': { queue: 'maintenance', payloadSchema: emptyPayload, attempts: 1, everyMs: 30_000 },
};

export const JOB_NAMES = Object.keys(JOB_CATALOG) as JobName[];

export function isJobName(name: string): name is JobName {
  return Object.prototype.hasOwnProperty.call(JOB_CATALOG, name);
}

export function jobsOfQueue(queue: QueueName): JobName[] {
  return JOB_NAMES.filter((n) => JOB_CATALOG[n].queue === queue);
}
