import { AppError } from '../errors';
import type { AgentGateway } from '../ports/agents';
import type { JobQueue } from '../ports/jobs';
import type { OperationRecord, OperationStore } from './operation.ports';
import { canMove, type OperationStatus } from './operation-state';
import { NOOP_JOB } from '../jobs';
import { OperationRunner, refuse, type OperationHandler } from './operation-runner';
import { OperationService } from './operation.service';

/** An in-memory store that enforces the state table, as the SQL WHERE clauses do. */
class MemoryStore implements OperationStore {
  rows = new Map<string, OperationRecord>();
  private n = 0;
  async create(input: { kind: string; nodeId: string | null; workspaceId: string | null; payload: Record<string, unknown> }) {
    const op: OperationRecord = { id: `op-${++this.n}`, ...input, status: 'queued', result: null, error: null, attempts: 0, createdAt: new Date(), startedAt: null, finishedAt: null };
    this.rows.set(op.id, op);
    return op;
  }
  async createOnNode(input: { kind: string; nodeId: string; workspaceId: string | null; payload: Record<string, unknown> }) {
    return input.nodeId === 'node-1' ? this.create(input) : null;
  }
  async get(id: string) {
    return this.rows.get(id) ?? null;
  }
  async claim(id: string, now: Date) {
    const op = await this.move(id, ['queued', 'running'], 'running', { startedAt: now, incrementAttempts: true, error: null });
    return op ? { op, node: { id: 'node-1', name: 'n1', grpcAddress: '127.0.0.1:1' } } : null;
  }
  async move(id: string, from: readonly OperationStatus[], to: OperationStatus, changes: { result?: unknown; error?: string | null; startedAt?: Date; finishedAt?: Date; incrementAttempts?: boolean } = {}) {
    const op = this.rows.get(id);
    if (!op || !from.includes(op.status)) return null;
    expect(canMove(op.status, to)).toBe(true);
    const next = {
      ...op,
      status: to,
      ...(changes.result !== undefined ? { result: changes.result } : {}),
      ...(changes.error !== undefined ? { error: changes.error } : {}),
      startedAt: op.startedAt ?? changes.startedAt ?? null,
      finishedAt: changes.finishedAt ?? op.finishedAt,
      attempts: op.attempts + (changes.incrementAttempts ? 1 : 0),
    };
    this.rows.set(id, next);
    return next;
  }
  async listQueuedBefore() {
    return [];
  }
}

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };

function setup(noop: AgentGateway['noop']) {
  const store = new MemoryStore();
  const enqueued: { name: string; payload: Record<string, unknown>; jobId: string }[] = [];
  const jobs: JobQueue = { enqueue: async (name, payload, o) => void enqueued.push({ name, payload, jobId: o.jobId }) };
  const ops = new OperationService({ operations: store, agents: { noop } as AgentGateway, jobs });
  const refuser: OperationHandler = async () => refuse('The workspace is not deleted');
  const runner = new OperationRunner({
    operations: store,
    handlers: { 'agent.noop': ops.noop, 'workspace.teardown': refuser, 'app.power': refuser, 'app.teardown': refuser },
    clock: () => new Date(),
    logger: quiet,
  });
  const service = {
    submit: ops.submit.bind(ops),
    execute: (id: string, attempt: { number: number; final: boolean }) => runner.run(id, attempt),
    markFailed: (id: string, reason: string) => runner.failForGood(id, reason),
  };
  return { store, enqueued, service, runner };
}

describe('OperationService and OperationRunner: claim → work → settle', () => {
  const ok: AgentGateway['noop'] = async (_t, i) => ({ operationId: i.operationId, startedAtMs: 1, finishedAtMs: 2, replayed: false });

  it('records the row and queues its job under the row id', async () => {
    const { service, enqueued } = setup(ok);
    const op = await service.submit(NOOP_JOB, { nodeId: 'node-1', payload: { delayMs: 5 } });
    expect(op.status).toBe('queued');
    expect(enqueued).toEqual([{ name: NOOP_JOB, payload: { operationId: op.id }, jobId: op.id }]);
    await expect(service.submit(NOOP_JOB, { nodeId: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(service.submit('no.such', { nodeId: 'node-1' })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('succeeds with the agent result, and a job delivered again does nothing', async () => {
    let calls = 0;
    const { service, store } = setup(async (t, i) => (calls++, ok(t, i)));
    const op = await service.submit(NOOP_JOB, { nodeId: 'node-1' });
    await service.execute(op.id, { number: 1, final: false });
    expect(store.rows.get(op.id)).toMatchObject({ status: 'succeeded', attempts: 1, result: { operationId: op.id } });
    await service.execute(op.id, { number: 1, final: false });
    expect(calls).toBe(1);
  });

  it('puts the row back to queued after a transient failure with tries left, and fails it on the last try', async () => {
    const { service, store } = setup(async () => {
      throw new AppError('node_unavailable', 'agent down');
    });
    const op = await service.submit(NOOP_JOB, { nodeId: 'node-1' });
    await expect(service.execute(op.id, { number: 1, final: false })).rejects.toThrow('agent down');
    expect(store.rows.get(op.id)).toMatchObject({ status: 'queued', error: 'try 1 failed: agent down' });
    await expect(service.execute(op.id, { number: 2, final: true })).rejects.toThrow('agent down');
    expect(store.rows.get(op.id)).toMatchObject({ status: 'failed', error: 'agent down', attempts: 2 });
    expect(store.rows.get(op.id)!.finishedAt).toBeInstanceOf(Date);
  });

  it('fails at once on a permanent error, whatever tries are left', async () => {
    const { service, store } = setup(async () => {
      throw new AppError('validation_failed', 'bad id');
    });
    const op = await service.submit(NOOP_JOB, { nodeId: 'node-1' });
    await expect(service.execute(op.id, { number: 1, final: false })).rejects.toThrow('bad id');
    expect(store.rows.get(op.id)).toMatchObject({ status: 'failed', error: 'bad id' });
  });

  it('marks a row failed only while it is not finished', async () => {
    const { service, store } = setup(ok);
    const op = await service.submit(NOOP_JOB, { nodeId: 'node-1' });
    expect(await service.markFailed(op.id, 'stalled too often')).toBe(true);
    expect(await service.markFailed(op.id, 'again')).toBe(false);
    expect(store.rows.get(op.id)).toMatchObject({ status: 'failed', error: 'stalled too often' });
  });

  it('a refusal fails the row for good with its reason and completes the job', async () => {
    const { store, runner } = setup(ok);
    const op = await store.create({ kind: 'workspace.teardown', nodeId: null, workspaceId: 'w-1', payload: {} });
    await expect(runner.run(op.id, { number: 1, final: false })).resolves.toBeNull();
    expect(store.rows.get(op.id)).toMatchObject({ status: 'failed', error: 'The workspace is not deleted' });
    await expect(runner.run(op.id, { number: 1, final: false }, 'app.power')).rejects.toMatchObject({ code: 'not_found' });
  });
});
