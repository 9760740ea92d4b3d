import type { DeploymentRunner, RoutingService } from '@slipway/core';
import type { Processor } from './processor';

export const deploymentRunProcessor =
  (runner: DeploymentRunner): Processor<'deployment.run'> =>
  (payload, ctx) =>
    runner.run(payload.deploymentId, ctx.attempt);

export const routesSyncProcessor =
  (routing: RoutingService): Processor<'routes.sync'> =>
  () =>
    routing.syncAllRoutes();
