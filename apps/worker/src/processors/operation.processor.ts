import type { OperationPayload, OperationRunner } from '@slipway/core';
import type { JobContext } from './processor';

/** Every job that owns an Operation row: the runner claims the row, runs the handler of its kind and settles it. */
export const operationProcessor =
  (runner: OperationRunner) =>
  (payload: OperationPayload, ctx: JobContext): Promise<unknown> =>
    runner.run(payload.operationId, ctx.attempt);
