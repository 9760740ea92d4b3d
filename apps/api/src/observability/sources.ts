import type { NodeRepository } from '@slipway/core';
import { QUEUE_NAMES, type BullJobQueue } from '@slipway/queue';
import type { LatencyHistogram, MetricsSources } from './prometheus';

type JobState = Parameters<ReturnType<BullJobQueue['queue']>['getJobCounts']>[number];
const STATES: JobState[] = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'];

/** The exposition's sources over the API's own queue connection and the nodes table. */
export function metricsSources(o: { http: LatencyHistogram; jobs: Pick<BullJobQueue, 'queue'>; nodes: Pick<NodeRepository, 'list'> }): MetricsSources {
  return {
    http: o.http,
    queues: async () => {
      const out: Record<string, Record<string, number>> = {};
      for (const name of QUEUE_NAMES) out[name] = await o.jobs.queue(name).getJobCounts(...STATES);
      return out;
    },
    agents: async () => (await o.nodes.list()).map((n) => ({ name: n.name, online: n.status === 'online', lastSeenAt: n.lastSeenAt })),
  };
}
