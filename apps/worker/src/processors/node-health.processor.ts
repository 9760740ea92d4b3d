import type { NodeService } from '@slipway/core';
import type { Processor } from './processor';

export const nodeHealthProcessor =
  (nodes: NodeService): Processor<'node.check-health'> =>
  () =>
    nodes.checkHealth();
