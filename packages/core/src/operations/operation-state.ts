import { stateTable } from '../state-table';

export type OperationStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/**
 * The one table of allowed moves. `running → queued` is a try that failed with tries left (the job
 * waits for its backoff); `running → running` is a retried or stalled job picking its row up again,
 * which is safe because the agent does each operation id once. A job that fails for good always ends
 * in `failed` with a reason, never in `running`.
 */
export const OPERATION_TRANSITIONS: Record<OperationStatus, readonly OperationStatus[]> = {
  queued: ['running', 'failed'],
  running: ['running', 'queued', 'succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

/** `sourcesOf(to)`: the statuses an operation may be in for a move to `to` (the WHERE of the conditional update). */
export const { canMove, sourcesOf } = stateTable(OPERATION_TRANSITIONS);

export const isFinished = (s: OperationStatus): boolean => OPERATION_TRANSITIONS[s].length === 0;
