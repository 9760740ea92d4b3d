import { AppError } from '../errors';
import { WORKSPACE_TEARDOWN_JOB } from '../jobs';
import type { Logger } from '../logging';
import { isFinished, sourcesOf } from '../operations/operation-state';
import type { OperationStore } from '../operations/operation.ports';
import type { Attempt } from '../operations/operation.service';
import type { Clock } from '../ports/clock';
import type { TeardownRepository } from '../ports/repositories';

/**
 * Runs the `workspace.teardown` job (jobId = the Operation row made when the workspace was deleted): removes what
 * a deleted workspace still holds and moves the operation through its states (operation-state.ts). Idempotent:
 * a finished operation answers at once, and a repeated purge finds nothing left. Apps, databases, backups and
 * domains join here as their issues land; today it deletes the tokens, memberships and reservations.
 */
export class WorkspaceTeardownService {
  constructor(private readonly deps: { teardown: TeardownRepository; operations: OperationStore; clock: Clock; logger: Logger }) {}

  async run(operationId: string, attempt: Attempt = { number: 1, final: true }): Promise<unknown> {
    const op = await this.deps.operations.get(operationId);
    if (!op || !op.workspaceId || op.kind !== WORKSPACE_TEARDOWN_JOB) throw new AppError('not_found', `No workspace teardown operation ${operationId}`);
    const workspaceId = op.workspaceId;
    if (isFinished(op.status)) return op.result;
    const now = this.deps.clock();
    const running = await this.deps.operations.move(op.id, sourcesOf('running'), 'running', {
      startedAt: op.startedAt ?? now,
      incrementAttempts: true,
      error: null,
    });
    if (!running) return (await this.deps.operations.get(op.id))?.result;
    try {
      if (!(await this.deps.teardown.isDeleted({ workspaceId }))) {
        // Never tear down a live workspace, whatever the job says.
        await this.deps.operations.move(op.id, ['running'], 'failed', { error: 'The workspace is not deleted', finishedAt: this.deps.clock() });
        return null;
      }
      const removed = await this.deps.teardown.purge({ workspaceId });
      await this.deps.operations.move(op.id, ['running'], 'succeeded', { result: removed, finishedAt: this.deps.clock() });
      this.deps.logger.info({ workspaceId, operationId, removed }, 'workspace torn down');
      return removed;
    } catch (e) {
      const error = (e as Error).message;
      if (attempt.final) await this.deps.operations.move(op.id, ['running'], 'failed', { error, finishedAt: this.deps.clock() });
      else await this.deps.operations.move(op.id, ['running'], 'queued', { error });
      throw e;
    }
  }
}
