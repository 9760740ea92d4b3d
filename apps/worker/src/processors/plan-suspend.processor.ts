import type { PlanEnforcementService } from '@slipway/core';
import type { Processor } from './processor';

export const planSuspendProcessor =
  (enforcement: PlanEnforcementService): Processor<'plan.suspend-expired'> =>
  () =>
    enforcement.suspendExpired(new Date());
