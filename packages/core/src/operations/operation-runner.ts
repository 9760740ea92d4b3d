import { AppError } from '../errors';
import type { OperationJobName } from '../jobs';
import type { Logger } from '../logging';
import type { Clock } from '../ports/clock';
import type { OperationRecord, OperationStore } from './operation.ports';
import { isFinished, sourcesOf } from './operation-state';

/** Where a job is in its tries, as the worker knows it. */
export interface Attempt {
  /** 1 for the first try. */
  number: number;
  /** true when no try follows if this one fails. */
  final: boolean;
}

/** An error worth another try: the agent was not reachable, or something failed on our side. */
export const isTransient = (e: unknown): boolean =>
  !(e instanceof AppError) || e.code === 'node_unavailable' || e.code === 'service_unavailable' || e.code === 'internal' || e.code === 'github_unavailable';

/** The server an operation was recorded on (null when its node row is gone). */
export type OperationNode = { id: string; name: string; grpcAddress: string } | null;

/**
 * A handler's way to end an operation as failed without an error of the worker: the request cannot be done (the
 * workspace is not deleted, …) and no retry will change that. The row fails with `reason`; the job completes.
 */
export class OperationRefused {
  constructor(readonly reason: string) {}
}
export const refuse = (reason: string): OperationRefused => new OperationRefused(reason);

/**
 * The work of one operation kind: what it does with its row (payload, workspace, node). It throws an AppError whose
 * message the user can act on; a transient one (node_unavailable, internal, anything not an AppError) is retried.
 */
export type OperationHandler = (op: OperationRecord, node: OperationNode) => Promise<unknown>;

export type OperationHandlers = { [K in OperationJobName]: OperationHandler };

/**
 * Runs every job that owns an Operation row: claim → work → settle.
 * - claim: one conditional update moves the row to `running` (from `queued`, or `running` for a retried or stalled
 *   job) and counts the try; a finished row answers its result at once (a job delivered again does nothing).
 * - work: the handler of the row's kind.
 * - settle: `succeeded` with the result; back to `queued` after a transient failure with tries left (the queue
 *   retries); `failed` with the reason on a permanent failure, the last try, or a refusal.
 */
export class OperationRunner {
  constructor(
    private readonly deps: {
      operations: OperationStore;
      /** The worker gives every kind (OperationHandlers); a caller that runs one kind itself may give only that one. */
      handlers: Partial<OperationHandlers>;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /**
   * One try of the job of `operationId`. With `kind`, a row of another kind is refused as not found (a caller that
   * knows which job it runs). Rethrows a failure so that the queue retries it or fails the job for good.
   */
  async run(operationId: string, attempt: Attempt, kind?: OperationJobName): Promise<unknown> {
    const { operations } = this.deps;
    if (kind) {
      const row = await operations.get(operationId);
      if (!row || row.kind !== kind) throw new AppError('not_found', `No ${kind} operation ${operationId}`);
    }
    const claimed = await operations.claim(operationId, this.deps.clock());
    if (!claimed) {
      const op = await operations.get(operationId);
      if (!op) throw new AppError('not_found', `Operation ${operationId} does not exist`);
      if (!isFinished(op.status)) throw new AppError('internal', `Operation ${operationId} could not be claimed`);
      return op.result;
    }
    const { op, node } = claimed;
    const handler = (this.deps.handlers as Partial<Record<string, OperationHandler>>)[op.kind];
    if (!handler) {
      const reason = `No handler for operation kind ${op.kind}`;
      await this.failForGood(op.id, reason);
      throw new AppError('validation_failed', reason);
    }
    try {
      const result = await handler(op, node);
      if (result instanceof OperationRefused) {
        await this.failForGood(op.id, result.reason);
        return null;
      }
      await operations.move(op.id, ['running'], 'succeeded', { result, finishedAt: this.deps.clock() });
      return result;
    } catch (e) {
      const reason = (e as Error).message;
      if (isTransient(e) && !attempt.final) {
        await operations.move(op.id, ['running'], 'queued', { error: `try ${attempt.number} failed: ${reason}` });
        this.deps.logger.warn({ operationId: op.id, kind: op.kind, attempt: attempt.number, err: reason }, 'operation try failed; will retry');
      } else {
        await this.failForGood(op.id, reason);
      }
      throw e;
    }
  }

  /** The row fails with the reason, unless it is already finished (jobs that end without their processor finishing too). */
  async failForGood(operationId: string, reason: string): Promise<boolean> {
    return (await this.deps.operations.move(operationId, sourcesOf('failed'), 'failed', { error: reason, finishedAt: this.deps.clock() })) !== null;
  }
}
