import { AppError } from '../errors';
import { NOOP_JOB } from '../jobs';
import type { AgentGateway } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { OperationRecord, OperationStore } from './operation.ports';
import type { OperationHandler } from './operation-runner';

/**
 * Durable work on a server: a row in PostgreSQL, a job whose id is the row's id, and a command to the agent
 * carrying the same id. `submit` records and queues; the OperationRunner runs the job through the row's states.
 */
export class OperationService {
  constructor(private readonly deps: { operations: OperationStore; agents: AgentGateway; jobs: JobQueue }) {}

  /** Records the operation on a node and queues its job (jobId = row id, payload `{ operationId }`). */
  async submit(kind: string, input: { nodeId: string; workspaceId?: string | null; payload?: Record<string, unknown> }): Promise<OperationRecord> {
    if (kind !== NOOP_JOB) throw new AppError('validation_failed', `Unknown operation kind ${kind}`);
    const op = await this.deps.operations.createOnNode({ kind, nodeId: input.nodeId, workspaceId: input.workspaceId ?? null, payload: input.payload ?? {} });
    if (!op) throw new AppError('not_found', 'The node was not found');
    await this.deps.jobs.enqueue(kind, { operationId: op.id }, { jobId: op.id });
    return op;
  }

  get(operationId: string): Promise<OperationRecord | null> {
    return this.deps.operations.get(operationId);
  }

  /** The `agent.noop` handler: the agent waits `payload.delayMs` under the operation id (benchmarks, retry tests). */
  readonly noop: OperationHandler = async (op, node) => {
    if (!node) throw new AppError('not_found', 'The node of this operation no longer exists');
    return this.deps.agents.noop(target(node), { operationId: op.id, delayMs: Number(op.payload.delayMs ?? 0) });
  };
}

export const target = (node: { name: string; grpcAddress: string }) => ({ name: node.name, grpcAddress: node.grpcAddress });
