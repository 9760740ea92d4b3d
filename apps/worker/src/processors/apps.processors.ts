import type { AppRuntimeService } from '@slipway/core';
import type { Processor } from './processor';

export const deploymentRunProcessor =
  (runtime: AppRuntimeService): Processor<'deployment.run'> =>
  (payload, ctx) =>
    runtime.runDeployment(payload.deploymentId, ctx.attempt);

export const routesSyncProcessor =
  (runtime: AppRuntimeService): Processor<'routes.sync'> =>
  () =>
    runtime.syncAllRoutes();
