import type { NodeService, OperationService, ReconcileService } from '@slipway/core';
import { nodeHealthProcessor } from './node-health.processor';
import { noopProcessor } from './noop.processor';
import type { Processors } from './processor';
import { reconcileProcessor } from './reconcile.processor';

export interface WorkerServices {
  operations: OperationService;
  nodes: NodeService;
  reconcile: ReconcileService;
}

export function buildProcessors(s: WorkerServices): Processors {
  return {
    'agent.noop': noopProcessor(s.operations),
    'node.check-health': nodeHealthProcessor(s.nodes),
    'reconcile.run': reconcileProcessor(s.reconcile),
  };
}

export type { JobContext, Processor, Processors } from './processor';
