import type { WorkspaceTeardownService } from '@slipway/core';
import type { Processor } from './processor';

export const workspaceTeardownProcessor =
  (teardown: WorkspaceTeardownService): Processor<'workspace.teardown'> =>
  (payload, ctx) =>
    teardown.run(payload.operationId, ctx.attempt);
