import type { MoveRunner, BackupJobService, DatabaseConvergeService, DeploymentRunner, DomainCheckService, GithubDeliveryService, LogRetentionService, MetricsCollectService, NodeService, OperationRunner, OperationService, PlanEnforcementService, ReconcileService, RoutingService } from '@slipway/core';
import { deploymentRunProcessor, routesSyncProcessor } from './apps.processors';
import { backupProcessors } from './backups.processors';
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
  /** `deployment.run`: the build phase by image source, then the rollout. */
  deployments: DeploymentRunner;
  /** `routes.sync`: the routes each server should serve. */
  routing: RoutingService;
  /** `deployment.prune-logs`: deployment logs past the retention. */
  logRetention: LogRetentionService;
  /** `github.delivery`: a webhook delivery's work (issue 16). */
  github: GithubDeliveryService;
  /** `domain.check` and `domains.sweep`: custom domains' re-checks, routes and certificate states. */
  domains: DomainCheckService;
  /** `metrics.collect` and `metrics.prune`: servers' metric minutes into PostgreSQL, and their pruning. */
  metrics: MetricsCollectService;
  /** Databases (issue 12): their operation handlers run through `runner`; exposed for tests and benchmarks. */
  databases: DatabaseConvergeService;
  /** Database backups (issue 13): the `backup.*` jobs. */
  backups: BackupJobService;
  /** `workspace.move` (issue 32): one move of a workspace to another server, under the workspace's lock. */
  moves: MoveRunner;
}

export function buildProcessors(s: WorkerServices): Processors {
  const operation = operationProcessor(s.runner);
  return {
    'agent.noop': operation,
    'node.check-health': nodeHealthProcessor(s.nodes),
    'reconcile.run': reconcileProcessor(s.reconcile),
    'workspace.teardown': operation,
    'plan.suspend-expired': planSuspendProcessor(s.enforcement),
    'deployment.run': deploymentRunProcessor(s.deployments),
    'app.power': operation,
    'app.teardown': operation,
    'routes.sync': routesSyncProcessor(s.routing),
    'deployment.prune-logs': () => s.logRetention.prune(),
    'github.delivery': (payload, ctx) => s.github.handle(payload.deliveryId, ctx.attempt),
    'domain.check': (payload) => s.domains.check(payload.domainId),
    'domains.sweep': () => s.domains.sweep(),
    'metrics.collect': () => s.metrics.collectAll(),
    'metrics.prune': () => s.metrics.prune(),
    'database.converge': operation,
    'database.rotate-password': operation,
    'database.teardown': operation,
    ...backupProcessors(s.backups),
    'workspace.move': (payload) => s.moves.run(payload.moveId),
  };
}

export type { JobContext, Processor, Processors } from './processor';
