import type { AppRuntimeService, NodeService, OperationService, PlanEnforcementService, ReconcileService, WorkspaceTeardownService } from '@slipway/core';
import { appPowerProcessor, appTeardownProcessor, deploymentRunProcessor, routesSyncProcessor } from './apps.processors';
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
  apps: AppRuntimeService;
}

export function buildProcessors(s: WorkerServices): Processors {
  return {
    'agent.noop': noopProcessor(s.operations),
    'node.check-health': nodeHealthProcessor(s.nodes),
    'reconcile.run': reconcileProcessor(s.reconcile),
    'workspace.teardown': workspaceTeardownProcessor(s.teardown),
    'plan.suspend-expired': planSuspendProcessor(s.enforcement),
    'deployment.run': deploymentRunProcessor(s.apps),
    'app.power': appPowerProcessor(s.apps),
    'app.teardown': appTeardownProcessor(s.apps),
    'routes.sync': routesSyncProcessor(s.apps),
  };
}

export type { JobContext, Processor, Processors } from './processor';
