import type { NodeService, OperationService, PlanEnforcementService, ReconcileService, WorkspaceTeardownService } from '@slipway/core';
import { nodeHealthProcessor } from './node-health.processor';
import { noopProcessor } from './noop.processor';
import { planSuspendProcessor } from './plan-suspend.processor';
import type { Processors } from './processor';
import { reconcileProcessor } from './reconcile.processor';
import { workspaceTeardownProcessor } from './workspace-teardown.processor';

export interface WorkerServices {
  operations: OperationService;
  nodes: NodeService;
  reconcile: ReconcileService;
  teardown: WorkspaceTeardownService;
  enforcement: PlanEnforcementService;
}

export function buildProcessors(s: WorkerServices): Processors {
  return {
    'agent.noop': noopProcessor(s.operations),
    'node.check-health': nodeHealthProcessor(s.nodes),
    'reconcile.run': reconcileProcessor(s.reconcile),
    'workspace.teardown': workspaceTeardownProcessor(s.teardown),
    'plan.suspend-expired': planSuspendProcessor(s.enforcement),
  };
}

export type { JobContext, Processor, Processors } from './processor';
