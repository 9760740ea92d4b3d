import type { MetricsHandlers } from '@slipway/proto';
import { unary, type HandlerTable } from '../rpc/handlers';
import type { ProjectStorage } from '../storage/storage';
import type { MetricsCollector } from './collector';
import type { MinuteStore } from './minute-store';

/** At most this many minutes per PullMetrics answer (2 h of minutes; 200 apps make 24,000 points). */
export const MAX_PULL_MINUTES = 120;

/** The Metrics service (metrics.proto): closed minutes by cursor, and the server's usage now. */
export function metricsHandlers(deps: { store: MinuteStore; collector: MetricsCollector; storage: ProjectStorage }): HandlerTable<MetricsHandlers> {
  return {
    PullMetrics: unary(async (req) => {
      const limit = Math.min(MAX_PULL_MINUTES, req.limitMinutes > 0 ? req.limitMinutes : MAX_PULL_MINUTES);
      const r = await deps.store.pull(Math.max(0, Number(req.after)), limit);
      return {
        cursor: r.cursor,
        done: r.done,
        points: r.points.map((p) => ({
          kind: p.kind,
          targetId: p.targetId,
          workspaceId: p.workspaceId,
          minute: p.minute,
          cpuMillis: p.cpuMillis,
          memoryMb: p.memoryMb,
          networkRxBytes: p.networkRxBytes,
          networkTxBytes: p.networkTxBytes,
          diskReadBytes: p.diskReadBytes,
          diskWriteBytes: p.diskWriteBytes,
          folderMb: p.folderMb,
          samples: p.samples,
        })),
      };
    }),
    NodeUsage: unary(async () => {
      const u = deps.collector.nodeUsage();
      const disk = await deps.storage.serverDisk();
      return {
        cpuTotalMillis: u.cpuTotalMillis,
        cpuUsedMillis: u.cpuUsedMillis,
        memoryTotalMb: u.memoryTotalMb,
        memoryUsedMb: u.memoryUsedMb,
        diskTotalMb: disk.totalMb,
        diskFreeMb: disk.freeMb,
        containers: u.containers,
        lastCycleMs: u.lastCycleMs,
      };
    }),
  };
}
