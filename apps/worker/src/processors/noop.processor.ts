import type { OperationService } from '@slipway/core';
import type { Processor } from './processor';

export const noopProcessor =
  (operations: OperationService): Processor<'agent.noop'> =>
  (payload, ctx) =>
    operations.execute(payload.operationId, ctx.attempt);
