import { AppError } from '../errors';
import { WORKSPACE_TEARDOWN_JOB } from '../jobs';
import type { Logger } from '../logging';
import { OperationRunner, refuse, type Attempt, type OperationHandler, type OperationNode } from '../operations/operation-runner';
import type { OperationStore } from '../operations/operation.ports';
import type { AgentGateway } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { TeardownStore } from '../ports/repositories';

/**
 * The work of the `workspace.teardown` job (its Operation row was recorded when the workspace was deleted): removes
 * what a deleted workspace holds, first on its server (every app's containers, image tags, routes and project
 * folders, any other container of the workspace, its network: one RemoveWorkspace call), then in PostgreSQL (apps
 * marked deleted, tokens, memberships, and last the reservations, so capacity is released only once nothing runs).
 * Idempotent: a repeated try finds nothing left; a failed one is retried, and what a teardown that failed for good
 * left on the server is removed by the reconciler. Databases, backups and domains join here as their issues land.
 */
export class WorkspaceTeardownService {
  private readonly runner: OperationRunner;

  constructor(
    private readonly deps: {
      teardown: TeardownStore;
      agents: AgentGateway;
      operations: OperationStore;
      clock: Clock;
      logger: Logger;
      /** Erases the workspace's databases (container, data, row) before the rest (issue 12). */
      databases?: { removeWorkspaceDatabases(workspaceId: string, node: OperationNode, operationId: string): Promise<number> };
    },
  ) {
    this.runner = new OperationRunner({ operations: deps.operations, handlers: { [WORKSPACE_TEARDOWN_JOB]: this.handler }, clock: deps.clock, logger: deps.logger });
  }

  /** The OperationRunner's handler of `workspace.teardown`. */
  readonly handler: OperationHandler = async (op, node) => {
    const workspaceId = op.workspaceId;
    if (!workspaceId) throw new AppError('validation_failed', 'The operation names no workspace');
    // Never tear down a live workspace, whatever the job says.
    if (!(await this.deps.teardown.isDeleted({ workspaceId }))) return refuse('The workspace is not deleted');
    // Databases first, each under its lock (container, data and row); then everything else of the workspace.
    const databases = this.deps.databases ? await this.deps.databases.removeWorkspaceDatabases(workspaceId, node, op.id) : 0;
    // A workspace never placed (or whose server's row is gone) holds nothing on a server.
    const server = node
      ? await this.deps.agents.removeWorkspace(
          { name: node.name, grpcAddress: node.grpcAddress },
          { operationId: `${op.id}-server`, workspaceId, appIds: await this.deps.teardown.appIds({ workspaceId }) },
        )
      : null;
    const removed = { server, databases, ...(await this.deps.teardown.purge({ workspaceId }, this.deps.clock())) };
    this.deps.logger.info({ workspaceId, operationId: op.id, removed }, 'workspace torn down');
    return removed;
  };

  /** One try outside the worker (the worker runs the same handler through its own runner). */
  run(operationId: string, attempt: Attempt = { number: 1, final: true }): Promise<unknown> {
    return this.runner.run(operationId, attempt, WORKSPACE_TEARDOWN_JOB);
  }
}
