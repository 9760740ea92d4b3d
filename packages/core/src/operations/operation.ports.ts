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

export interface OperationStore {
  create(input: { kind: string; nodeId: string | null; workspaceId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord>;
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
