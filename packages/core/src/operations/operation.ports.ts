import type { OperationJobName } from '../jobs';
import type { OperationStatus } from './operation-state';

export interface OperationRecord {
  id: string;
  workspaceId: string | null;
  nodeId: string | null;
  kind: string;
  status: OperationStatus;
  payload: Record<string, unknown>;
  result: unknown;
  error: string | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/**
 * Request side: an operation recorded by a request belongs to the workspace it was made in (its job then runs it
 * through the job-side OperationStore, which only the worker composes).
 */
export interface OperationRecorder {
  record(scope: { workspaceId: string }, input: { kind: OperationJobName; nodeId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord>;
}

/** Job side, keyed by the operation id the job carries. */
export interface OperationStore {
  create(input: { kind: string; nodeId: string | null; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord>;
  /** Inserts the row only when the node exists (one round trip); null when it does not. */
  createOnNode(input: { kind: string; nodeId: string; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord | null>;
  /**
   * The first step of a try, in one round trip: moves the row to `running` (from `queued`, or from `running`
   * for a retried or stalled job), counts the try, and returns it with its node's address. null when the
   * row is missing or finished.
   */
  claim(operationId: string, now: Date): Promise<{ op: OperationRecord; node: { id: string; name: string; grpcAddress: string } | null } | null>;
  get(operationId: string): Promise<OperationRecord | null>;
  /**
   * Conditional update: moves the row to `to` only while its status is one of `from` (UPDATE … WHERE
   * status IN …). null when the row was not in `from` (a race was lost, or it is finished).
   */
  move(
    operationId: string,
    from: readonly OperationStatus[],
    to: OperationStatus,
    changes?: { result?: unknown; error?: string | null; startedAt?: Date; finishedAt?: Date; incrementAttempts?: boolean },
  ): Promise<OperationRecord | null>;
  /** Rows still `queued` that were created before `before` (their job may never have been added). */
  listQueuedBefore(before: Date, limit: number): Promise<OperationRecord[]>;
}
