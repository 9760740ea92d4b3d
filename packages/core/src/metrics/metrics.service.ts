import type { Metrics, MetricsRange } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import type { Clock } from '../ports/clock';
import { fillSeries, rangeWindow } from './metrics-range';
import type { MetricsGateway, MetricsQueryRepository, MetricsStore } from './metrics.ports';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Minute rows are kept this long (spec: 30 days answered, one more day so the oldest step is whole). */
export const METRICS_RETENTION_DAYS = 31;

/** GET …/apps/{appId}/metrics: the app's steps of the range, scoped to the caller's workspace. */
export class MetricsService {
  constructor(
    private readonly deps: {
      apps: { findApp(input: { workspaceId: string; appId: string }): Promise<{ id: string } | null> };
      metrics: MetricsQueryRepository;
      clock: Clock;
    },
  ) {}

  async appMetrics(access: WorkspaceAccess, appId: string, range: MetricsRange = '1h'): Promise<Metrics> {
    // An app of another workspace is 404, like a missing one.
    const app = await this.deps.apps.findApp({ workspaceId: access.workspace.id, appId });
    if (!app) throw new AppError('not_found', 'The app was not found');
    const window = rangeWindow(range, this.deps.clock());
    const buckets = await this.deps.metrics.buckets({ workspaceId: access.workspace.id, targetId: app.id, from: window.from, to: window.to, stepSeconds: window.stepSeconds });
    return fillSeries(range, window, buckets);
  }
}

/** The `metrics.collect` and `metrics.prune` jobs. */
export class MetricsCollectService {
  constructor(
    private readonly deps: {
      nodes: Pick<NodeRepository, 'list'>;
      metrics: MetricsGateway;
      store: MetricsStore;
      clock: Clock;
      logger: Logger;
      /** Minutes asked per call (the agent caps it). */
      limitMinutes?: number;
    },
  ) {}

  /**
   * Every online server's closed minutes since its cursor, one batch per answer: stored, then the cursor moved in
   * the same transaction, so a repeated pull stores nothing twice and a failed one is asked again next time. A
   * server that does not answer is skipped (its agent keeps the minutes); the others go on.
   */
  async collectAll(): Promise<{ nodes: number; rows: number; failed: number }> {
    const online = (await this.deps.nodes.list()).filter((n) => n.status === 'online');
    const results = await Promise.all(
      online.map((n) =>
        this.collect(n).catch((e: Error) => {
          this.deps.logger.warn({ node: n.name, err: e.message }, 'metrics not collected');
          return null;
        }),
      ),
    );
    const ok = results.filter((r): r is number => r !== null);
    return { nodes: ok.length, rows: ok.reduce((a, b) => a + b, 0), failed: results.length - ok.length };
  }

  /** One server: pulls until its agent has nothing closed left (bounded, so one job never runs forever). */
  async collect(node: { id: string; name: string; grpcAddress: string }): Promise<number> {
    const target = { name: node.name, grpcAddress: node.grpcAddress };
    // The server's usage now, for operators (`slipway-admin nodes`); an agent too old to tell is no failure.
    await this.deps.metrics
      .nodeUsage(target)
      .then((u) => this.deps.store.recordUsage(node.id, u, this.deps.clock()))
      .catch((e: Error) => this.deps.logger.warn({ node: node.name, err: e.message }, 'node usage not recorded'));
    let after = await this.deps.store.cursorOf(node.id);
    let rows = 0;
    for (let round = 0; round < 30; round++) {
      const r = await this.deps.metrics.pullMetrics(target, after, this.deps.limitMinutes);
      if (r.cursor <= after && r.points.length === 0) break;
      // Only workloads the platform made carry ids: a container with a hand-written label is not stored.
      const points = r.points.filter((p) => UUID.test(p.targetId) && UUID.test(p.workspaceId) && (p.kind === 'app' || p.kind === 'database'));
      rows += await this.deps.store.store(node.id, points, Math.max(after, r.cursor));
      after = Math.max(after, r.cursor);
      if (r.done) break;
    }
    return rows;
  }

  prune(): Promise<number> {
    return this.deps.store.prune(new Date(this.deps.clock().getTime() - METRICS_RETENTION_DAYS * 86_400_000));
  }
}
