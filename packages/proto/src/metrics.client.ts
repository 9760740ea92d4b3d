import type { AgentTarget, MetricMinutePoint, MetricsGateway, NodeUsageNow } from '@slipway/core';
import type { AgentPool } from './client';
import { unary } from './unary';
import type { MetricsClient } from './generated/slipway/agent/v1/Metrics';
import type { NodeUsageResponse__Output } from './generated/slipway/agent/v1/NodeUsageResponse';
import type { PullMetricsResponse__Output } from './generated/slipway/agent/v1/PullMetricsResponse';
import { loadMetricsProto } from './load';

export type { MetricsClient };

/** The `slipway.agent.v1.Metrics` service of each server over the pool's connection; implements MetricsGateway. */
export class MetricsPool implements MetricsGateway {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): MetricsClient {
    const { Metrics } = loadMetricsProto().slipway.agent.v1;
    return this.agents.connection(target).service('metrics', (address, credentials, options) => new Metrics(address, credentials, options));
  }

  async pullMetrics(target: AgentTarget, after: number, limitMinutes = 0): Promise<{ points: MetricMinutePoint[]; cursor: number; done: boolean }> {
    const res = await unary<PullMetricsResponse__Output>(target, (cb, o) => this.client(target).pullMetrics({ after, limitMinutes }, o, cb));
    return {
      cursor: Number(res.cursor),
      done: res.done,
      points: res.points.map((p) => ({
        kind: p.kind as MetricMinutePoint['kind'],
        targetId: p.targetId,
        workspaceId: p.workspaceId,
        minute: Number(p.minute),
        cpuMillis: p.cpuMillis,
        memoryMb: p.memoryMb,
        networkRxBytes: Number(p.networkRxBytes),
        networkTxBytes: Number(p.networkTxBytes),
        diskReadBytes: Number(p.diskReadBytes),
        diskWriteBytes: Number(p.diskWriteBytes),
        folderMb: p.folderMb < 0 ? null : p.folderMb,
      })),
    };
  }

  async nodeUsage(target: AgentTarget): Promise<NodeUsageNow> {
    const r = await unary<NodeUsageResponse__Output>(target, (cb, o) => this.client(target).nodeUsage({}, o, cb));
    return {
      cpuTotalMillis: r.cpuTotalMillis,
      cpuUsedMillis: r.cpuUsedMillis,
      memoryTotalMb: r.memoryTotalMb,
      memoryUsedMb: r.memoryUsedMb,
      diskTotalMb: r.diskTotalMb,
      diskFreeMb: r.diskFreeMb,
      containers: r.containers,
      lastCycleMs: r.lastCycleMs,
    };
  }
}
