import type { OperationJobName, OperationRecord, OperationRecorder } from '@slipway/core';
import type { Db } from '../client';
import { PrismaOperationStore } from '../agents/operations.repository';

/**
 * Operations, request side: a request records the row of its job in its own workspace. Claims and moves are the
 * job-side `PrismaOperationStore`'s (src/agents), which only the worker composes.
 */
export class PrismaOperationRecorder implements OperationRecorder {
  private readonly store: PrismaOperationStore;

  constructor(db: Db) {
    this.store = new PrismaOperationStore(db);
  }

  record(scope: { workspaceId: string }, input: { kind: OperationJobName; nodeId: string | null; payload: Record<string, unknown> }): Promise<OperationRecord> {
    return this.store.create({ ...input, workspaceId: scope.workspaceId });
  }
}
