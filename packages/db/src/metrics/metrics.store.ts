import type { MetricMinutePoint, MetricsStore, NodeUsageNow } from '@slipway/core';
import type { SqlPool } from '../sql-pool';

// One statement per batch, one round trip whatever the number of points: the minutes from unnest(arrays), a point
// already stored (a repeated pull) skipped by the primary key, and only the minutes that were new added into their
// half hours (so the roll-up never counts a minute twice). Answers how many minutes were new.
const INSERT = `
  WITH ins AS (
    INSERT INTO metric_minutes (target_id, at, kind, workspace_id, node_id, cpu_millis, memory_mb,
                                network_rx_bytes, network_tx_bytes, disk_read_bytes, disk_write_bytes, folder_mb)
    SELECT u.t, to_timestamp(u.m * 60), u.k, u.w, $1::uuid, u.c, u.mem, u.rx, u.tx, u.rd, u.wr, u.f
    FROM unnest($2::uuid[], $3::bigint[], $4::text[], $5::uuid[], $6::int[], $7::int[], $8::bigint[], $9::bigint[],
                $10::bigint[], $11::bigint[], $12::int[]) AS u(t, m, k, w, c, mem, rx, tx, rd, wr, f)
    ON CONFLICT DO NOTHING
    RETURNING *
  ), rolled AS (
    INSERT INTO metric_half_hours AS h (target_id, at, kind, workspace_id, cpu_millis_sum, minutes, memory_mb,
                                        network_rx_bytes, network_tx_bytes, disk_read_bytes, disk_write_bytes, folder_mb)
    SELECT target_id, to_timestamp(floor(extract(epoch FROM at) / 1800) * 1800), kind, workspace_id, sum(cpu_millis),
           count(*), max(memory_mb), sum(network_rx_bytes), sum(network_tx_bytes), sum(disk_read_bytes),
           sum(disk_write_bytes), max(folder_mb)
    FROM ins GROUP BY 1, 2, 3, 4
    ON CONFLICT (target_id, at) DO UPDATE SET
      cpu_millis_sum = h.cpu_millis_sum + EXCLUDED.cpu_millis_sum,
      minutes = h.minutes + EXCLUDED.minutes,
      memory_mb = GREATEST(h.memory_mb, EXCLUDED.memory_mb),
      network_rx_bytes = h.network_rx_bytes + EXCLUDED.network_rx_bytes,
      network_tx_bytes = h.network_tx_bytes + EXCLUDED.network_tx_bytes,
      disk_read_bytes = h.disk_read_bytes + EXCLUDED.disk_read_bytes,
      disk_write_bytes = h.disk_write_bytes + EXCLUDED.disk_write_bytes,
      folder_mb = GREATEST(h.folder_mb, EXCLUDED.folder_mb)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM rolled)::int AS rolled`;

// Each app's newest folder figure of the batch onto its row, unless the row already holds a later one (issue 34: an
// app read shows it with its age and never asks the agent). The workspace must match: a point never writes another
// workspace's app. Raw SQL leaves updated_at alone (it says when the app was changed, not measured).
const FOLDERS = `
  UPDATE apps a SET folder_used_mb = u.f, folder_measured_at = to_timestamp(u.m * 60)
  FROM (
    SELECT DISTINCT ON (t) t, w, m, f
    FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::int[]) AS x(t, w, m, f)
    ORDER BY t, m DESC
  ) u
  WHERE a.id = u.t AND a.workspace_id = u.w
    AND (a.folder_measured_at IS NULL OR a.folder_measured_at < to_timestamp(u.m * 60))`;

const CURSOR = `
  INSERT INTO node_metrics (node_id, minute, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (node_id) DO UPDATE SET minute = GREATEST(node_metrics.minute, EXCLUDED.minute), updated_at = now()`;

const USAGE = `
  INSERT INTO node_metrics (node_id, cpu_total_millis, cpu_used_millis, memory_total_mb, memory_used_mb, disk_total_mb,
                            disk_free_mb, containers, usage_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())
  ON CONFLICT (node_id) DO UPDATE SET cpu_total_millis = $2, cpu_used_millis = $3, memory_total_mb = $4,
    memory_used_mb = $5, disk_total_mb = $6, disk_free_mb = $7, containers = $8, usage_at = $9, updated_at = now()`;

/** Job side: keyed by the node the job is collecting from. */
export class PgMetricsStore implements MetricsStore {
  constructor(private readonly sql: SqlPool) {}

  async cursorOf(nodeId: string): Promise<number> {
    const { rows } = await this.sql.query<{ minute: string }>('SELECT minute::text FROM node_metrics WHERE node_id = $1', [nodeId]);
    return rows[0] ? Number(rows[0].minute) : 0;
  }

  async store(nodeId: string, points: MetricMinutePoint[], cursor: number): Promise<number> {
    const client = await this.sql.connect();
    try {
      await client.query('BEGIN');
      let inserted = 0;
      if (points.length > 0) {
        const r = await client.query<{ inserted: number }>(INSERT, [
          nodeId,
          points.map((p) => p.targetId),
          points.map((p) => p.minute),
          points.map((p) => p.kind),
          points.map((p) => p.workspaceId),
          points.map((p) => p.cpuMillis),
          points.map((p) => p.memoryMb),
          points.map((p) => p.networkRxBytes),
          points.map((p) => p.networkTxBytes),
          points.map((p) => p.diskReadBytes),
          points.map((p) => p.diskWriteBytes),
          points.map((p) => p.folderMb),
        ]);
        inserted = r.rows[0]?.inserted ?? 0;
        const folders = points.filter((p) => p.kind === 'app' && p.folderMb !== null);
        if (folders.length > 0) {
          await client.query(FOLDERS, [folders.map((p) => p.targetId), folders.map((p) => p.workspaceId), folders.map((p) => p.minute), folders.map((p) => p.folderMb)]);
        }
      }
      await client.query(CURSOR, [nodeId, cursor]);
      await client.query('COMMIT');
      return inserted;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async recordUsage(nodeId: string, u: NodeUsageNow, at: Date): Promise<void> {
    await this.sql.query(USAGE, [nodeId, u.cpuTotalMillis, u.cpuUsedMillis, u.memoryTotalMb, u.memoryUsedMb, u.diskTotalMb, u.diskFreeMb, u.containers, at]);
  }

  /** Minutes (and half hours) older than `before`; answers how many minutes. */
  async prune(before: Date): Promise<number> {
    const r = await this.sql.query('DELETE FROM metric_minutes WHERE at < $1', [before]);
    await this.sql.query('DELETE FROM metric_half_hours WHERE at < $1', [before]);
    return r.rowCount ?? 0;
  }
}

/** Each server's measured usage as the last `metrics.collect` recorded it (for `slipway-admin nodes`), by node id. */
export async function nodeUsages(db: { nodeMetrics: { findMany(): Promise<NodeMetricsRow[]> } }): Promise<Map<string, NodeUsageNow & { at: Date }>> {
  const out = new Map<string, NodeUsageNow & { at: Date }>();
  for (const r of await db.nodeMetrics.findMany()) {
    if (!r.usageAt) continue;
    out.set(r.nodeId, {
      cpuTotalMillis: r.cpuTotalMillis ?? 0,
      cpuUsedMillis: r.cpuUsedMillis ?? 0,
      memoryTotalMb: r.memoryTotalMb ?? 0,
      memoryUsedMb: r.memoryUsedMb ?? 0,
      diskTotalMb: r.diskTotalMb ?? 0,
      diskFreeMb: r.diskFreeMb ?? 0,
      containers: r.containers ?? 0,
      lastCycleMs: 0,
      at: r.usageAt,
    });
  }
  return out;
}

interface NodeMetricsRow {
  nodeId: string;
  cpuTotalMillis: number | null;
  cpuUsedMillis: number | null;
  memoryTotalMb: number | null;
  memoryUsedMb: number | null;
  diskTotalMb: number | null;
  diskFreeMb: number | null;
  containers: number | null;
  usageAt: Date | null;
}
