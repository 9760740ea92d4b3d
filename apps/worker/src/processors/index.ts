import type { AppRuntimeService, NodeService, OperationRunner, OperationService, PlanEnforcementService, ReconcileService } from '@slipway/core';
import { deploymentRunProcessor, routesSyncProcessor } from './apps.processors';
import { nodeHealthProcessor } from './node-health.processor';
import { operationProcessor } from './operation.processor';
import { planSuspendProcessor } from './plan-suspend.processor';
import type { Processors } from './processor';
import { reconcileProcessor } from './reconcile.processor';

export interface WorkerServices {
  /** Records operations on a node (`submit`: benchmarks, retry tests). */
  operations: OperationService;
  /** Runs every job that owns an Operation row (agent.noop, workspace.teardown, app.power, app.teardown). */
  runner: OperationRunner;
  nodes: NodeService;
  reconcile: ReconcileService;
  enforcement: PlanEnforcementService;
  apps: AppRuntimeService;
}

export function buildProcessors(s: WorkerServices): Processors {
  const operation = operationProcessor(s.runner);
  return {
    'agent.noop': operation,
    'node.check-health': nodeHealthProcessor(s.nodes),
    'reconcile.run': reconcileProcessor(s.reconcile),
    'workspace.teardown': operation,
    'plan.suspend-expired': planSuspendProcessor(s.enforcement),
    'deployment.run': deploymentRunProcessor(s.apps),
    'app.power': operation,
    'app.teardown': operation,
    'routes.sync': routesSyncProcessor(s.apps),
  };
}

export type { JobContext, Processor, Processors } from './processor';
