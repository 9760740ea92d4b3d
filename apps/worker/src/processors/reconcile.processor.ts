import type { ReconcileService } from '@slipway/core';
import type { Processor } from './processor';

export const reconcileProcessor =
  (reconcile: ReconcileService): Processor<'reconcile.run'> =>
  (_payload, ctx) =>
    reconcile.run(ctx.jobId);
