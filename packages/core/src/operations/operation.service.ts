import { AppError } from '../errors';
import type { Logger } from '../logging';
import type { AgentGateway } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { NodeRepository } from '../nodes/node.ports';
import type { OperationRecord, OperationStore } from './operation.ports';
import { sourcesOf } from './operation-state';

export const NOOP_JOB = 'agent.noop';

/** Where a job is in its tries, as the worker knows it. */
export interface Attempt {
  /** 1 for the first try. */
  number: number;
  /** true when no try follows if this one fails. */
  final: boolean;
}

/** An error worth another try: the agent was not reachable, or something failed on our side. */
export const isTransient = (e: unknown): boolean => !(e instanceof AppError) || e.code === 'node_unavailable' || e.code === 'internal';

type Handler = (op: OperationRecord, node: { name: string; grpcAddress: string }) => Promise<unknown>;

/**
 * Durable work on a server: a row in PostgreSQL, a job whose id is the row's id, and a command to the
 * agent carrying the same id. The row moves only through conditional updates (operation-state.ts).
 */
export class OperationService {
  private readonly handlers: Record<string, Handler>;

  constructor(
    private readonly deps: {
      operations: OperationStore;
      nodes: NodeRepository;
      agents: AgentGateway;
      jobs: JobQueue;
      logger: Logger;
    },
  ) {
    // One entry per operation kind: what the agent is asked to do.
    this.handlers = {
      [NOOP_JOB]: (op, node) =>
        this.deps.agents.noop(target(node), { operationId: op.id, delayMs: Number(op.payload.delayMs ?? 0) }),
    };
  }

  /** Records the operation and queues its job (jobId = row id). */
  async submit(kind: string, input: { nodeId: string; workspaceId?: string | null; payload?: Record<string, unknown> }): Promise<OperationRecord> {
    if (!this.handlers[kind]) throw new AppError('validation_failed', `Unknown operation kind ${kind}`);
    const op = await this.deps.operations.createOnNode({ kind, nodeId: input.nodeId, workspaceId: input.workspaceId ?? null, payload: input.payload ?? {} });
    if (!op) throw new AppError('not_found', 'The node was not found');
    await this.deps.jobs.enqueue(kind, { operationId: op.id }, { jobId: op.id });
    return op;
  }

  get(operationId: string): Promise<OperationRecord | null> {
    return this.deps.operations.get(operationId);
  }

  /**
   * Runs one try of the operation's job. A finished row answers at once (a job delivered again after it
   * finished does nothing). A transient failure with tries left puts the row back to `queued` and rethrows
   * so the queue retries; any other failure, or the last try, leaves it `failed` with the reason.
   */
  async execute(operationId: string, attempt: Attempt): Promise<unknown> {
    // One round trip on the hot path: claim the row (queued/running → running) together with its node's address.
    const claimed = await this.deps.operations.claim(operationId, new Date());
    if (!claimed) {
      const op = await this.deps.operations.get(operationId);
      if (!op) throw new AppError('not_found', `Operation ${operationId} does not exist`);
      return op.result; // finished: a job delivered again after its row finished does nothing
    }
    const { op, node } = claimed;
    const handler = this.handlers[op.kind];
    if (!handler) return this.fail(op.id, `No handler for operation kind ${op.kind}`);
    try {
      if (!node) throw new AppError('not_found', 'The node of this operation no longer exists');
      const result = await handler(op, node);
      await this.deps.operations.move(op.id, ['running'], 'succeeded', { result, finishedAt: new Date() });
      return result;
    } catch (e) {
      const reason = (e as Error).message;
      if (isTransient(e) && !attempt.final) {
        await this.deps.operations.move(op.id, ['running'], 'queued', { error: `try ${attempt.number} failed: ${reason}` });
        this.deps.logger.warn({ operationId: op.id, attempt: attempt.number, err: reason }, 'operation try failed; will retry');
      } else {
        await this.deps.operations.move(op.id, sourcesOf('failed'), 'failed', { error: reason, finishedAt: new Date() });
      }
      throw e;
    }
  }

  /** For jobs that end without their processor finishing (stalled too often, removed): the row fails with the reason. */
  async markFailed(operationId: string, reason: string): Promise<boolean> {
    return (await this.deps.operations.move(operationId, sourcesOf('failed'), 'failed', { error: reason, finishedAt: new Date() })) !== null;
  }

  private async fail(operationId: string, reason: string): Promise<never> {
    await this.markFailed(operationId, reason);
    throw new AppError('validation_failed', reason);
  }
}

export const target = (node: { name: string; grpcAddress: string }) => ({ name: node.name, grpcAddress: node.grpcAddress });
