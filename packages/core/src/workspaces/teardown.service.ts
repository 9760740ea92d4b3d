import { AppError } from '../errors';
import { WORKSPACE_TEARDOWN_JOB } from '../jobs';
import type { Logger } from '../logging';
import { OperationRunner, refuse, type Attempt, type OperationHandler } from '../operations/operation-runner';
import type { OperationStore } from '../operations/operation.ports';
import type { Clock } from '../ports/clock';
import type { TeardownStore } from '../ports/repositories';

/**
 * The work of the `workspace.teardown` job (its Operation row was recorded when the workspace was deleted): removes
 * what a deleted workspace still holds. Idempotent: a repeated purge finds nothing left. Apps, databases, backups and
 * domains join here as their issues land; today it deletes the tokens, memberships and reservations.
 */
export class WorkspaceTeardownService {
  private readonly runner: OperationRunner;

  constructor(private readonly deps: { teardown: TeardownStore; operations: OperationStore; clock: Clock; logger: Logger }) {
    this.runner = new OperationRunner({ operations: deps.operations, handlers: { [WORKSPACE_TEARDOWN_JOB]: this.handler }, clock: deps.clock, logger: deps.logger });
  }

  /** The OperationRunner's handler of `workspace.teardown`. */
  readonly handler: OperationHandler = async (op) => {
    const workspaceId = op.workspaceId;
    if (!workspaceId) throw new AppError('validation_failed', 'The operation names no workspace');
    // Never tear down a live workspace, whatever the job says.
    if (!(await this.deps.teardown.isDeleted({ workspaceId }))) return refuse('The workspace is not deleted');
    const removed = await this.deps.teardown.purge({ workspaceId });
    this.deps.logger.info({ workspaceId, operationId: op.id, removed }, 'workspace torn down');
    return removed;
  };

  /** One try outside the worker (the worker runs the same handler through its own runner). */
  run(operationId: string, attempt: Attempt = { number: 1, final: true }): Promise<unknown> {
    return this.runner.run(operationId, attempt, WORKSPACE_TEARDOWN_JOB);
  }
}
