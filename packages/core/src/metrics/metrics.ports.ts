import type { AgentTarget } from '../ports/agents';

/** One workload's minute as its agent aggregated it (CPU: average millicores; memory: highest MB; bytes: summed). */
export interface MetricMinutePoint {
  kind: 'app' | 'database';
  targetId: string;
  workspaceId: string;
  /** Epoch minutes. */
  minute: number;
  cpuMillis: number;
  memoryMb: number;
  networkRxBytes: number;
  networkTxBytes: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  /** The project folder's size as last measured; null when not known (databases, not measured yet). */
  folderMb: number | null;
}

/** A server as a whole now, as its agent measures it. */
export interface NodeUsageNow {
  cpuTotalMillis: number;
  cpuUsedMillis: number;
  memoryTotalMb: number;
  memoryUsedMb: number;
  diskTotalMb: number;
  diskFreeMb: number;
  containers: number;
  lastCycleMs: number;
}

/** The agents' Metrics service (metrics.proto). */
export interface MetricsGateway {
  /** Closed minutes after `after` (acknowledging everything up to it), oldest first. */
  pullMetrics(target: AgentTarget, after: number, limitMinutes?: number): Promise<{ points: MetricMinutePoint[]; cursor: number; done: boolean }>;
  nodeUsage(target: AgentTarget): Promise<NodeUsageNow>;
}

/** Job side: the minute rows and each server's cursor. */
export interface MetricsStore {
  /** The last minute stored from this node (0 at first). */
  cursorOf(nodeId: string): Promise<number>;
  /**
   * Inserts the points (a repeated one stores nothing: ON CONFLICT DO NOTHING) and moves the node's cursor, in one
   * transaction. Answers how many rows were new.
   */
  store(nodeId: string, points: MetricMinutePoint[], cursor: number): Promise<number>;
  /** The server's measured usage now (for `slipway-admin nodes`). */
  recordUsage(nodeId: string, usage: NodeUsageNow, at: Date): Promise<void>;
  /** Drops rows older than `before`; answers how many. */
  prune(before: Date): Promise<number>;
}

/** One step of a range as the database sums it (only steps that hold at least one minute row), `at` its start. */
export type MetricBucket = Omit<MetricMinutePoint, 'kind' | 'targetId' | 'workspaceId' | 'minute'> & { at: Date };

/** Request side: the steps of one workload of one workspace. */
export interface MetricsQueryRepository {
  buckets(input: { workspaceId: string; targetId: string; from: Date; to: Date; stepSeconds: number }): Promise<MetricBucket[]>;
}
