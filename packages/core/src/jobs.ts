// Names and payloads of the jobs the core services enqueue or run. packages/queue registers them in its catalog
// (queue, payload schema, retries); the job id is always the id of the row the job belongs to.

/**
 * Tears down a deleted workspace. jobId = the Operation row id, also in the payload like every operation job (the
 * reconciler re-queues stranded rows with `{ operationId }` alone); the workspace is read from the row, and
 * `workspaceId` is there for people reading the queue.
 */
export const WORKSPACE_TEARDOWN_JOB = 'workspace.teardown';
export interface WorkspaceTeardownPayload {
  operationId: string;
  workspaceId?: string;
}

/** Repeatable: suspends workspaces whose grace period ended without a paid plan. */
export const PLAN_SUSPEND_EXPIRED_JOB = 'plan.suspend-expired';
export const PLAN_SUSPEND_EXPIRED_EVERY_MS = 10 * 60 * 1000;
