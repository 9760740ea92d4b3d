import type { MetricBucket, MetricsQueryRepository } from '@slipway/core';
import type { SqlPool } from '../sql-pool';

// One statement per range query, its rows found by the primary key (target_id, at) and the step's sums made in
// PostgreSQL. Steps shorter than half an hour (1h, 24h: at most 1,440 rows) read the minutes; longer ones (7d, 30d)
// the half hours (336 and 1,440 rows instead of up to 43,200 scattered minutes).
const FROM_MINUTES = `
  SELECT floor(extract(epoch FROM at) / $5)::bigint * $5 AS step,
         round(avg(cpu_millis))::int AS cpu, max(memory_mb) AS mem,
         sum(network_rx_bytes)::text AS rx, sum(network_tx_bytes)::text AS tx,
         sum(disk_read_bytes)::text AS rd, sum(disk_write_bytes)::text AS wr, max(folder_mb) AS folder
  FROM metric_minutes
  WHERE target_id = $1 AND workspace_id = $2 AND at >= $3 AND at < $4
  GROUP BY 1 ORDER BY 1`;

const FROM_HALF_HOURS = `
  SELECT floor(extract(epoch FROM at) / $5)::bigint * $5 AS step,
         round(sum(cpu_millis_sum)::numeric / sum(minutes))::int AS cpu, max(memory_mb) AS mem,
         sum(network_rx_bytes)::text AS rx, sum(network_tx_bytes)::text AS tx,
         sum(disk_read_bytes)::text AS rd, sum(disk_write_bytes)::text AS wr, max(folder_mb) AS folder
  FROM metric_half_hours
  WHERE target_id = $1 AND workspace_id = $2 AND at >= $3 AND at < $4
  GROUP BY 1 ORDER BY 1`;

interface Row {
  step: string;
  cpu: number;
  mem: number;
  rx: string;
  tx: string;
  rd: string;
  wr: string;
  folder: number | null;
}

/** Request side: every query names the workspace (an app id of another workspace finds nothing). */
export class PgMetricsRepository implements MetricsQueryRepository {
  constructor(private readonly sql: SqlPool) {}

  async buckets(input: { workspaceId: string; targetId: string; from: Date; to: Date; stepSeconds: number }): Promise<MetricBucket[]> {
    const halfHours = input.stepSeconds >= 1800 && input.stepSeconds % 1800 === 0;
    const { rows } = await this.sql.query<Row>({
      name: halfHours ? 'metrics-half-hours' : 'metrics-minutes',
      text: halfHours ? FROM_HALF_HOURS : FROM_MINUTES,
      values: [input.targetId, input.workspaceId, input.from, input.to, input.stepSeconds],
    });
    return rows.map((r) => ({
      at: new Date(Number(r.step) * 1000),
      cpuMillis: r.cpu,
      memoryMb: r.mem,
      networkRxBytes: Number(r.rx),
      networkTxBytes: Number(r.tx),
      diskReadBytes: Number(r.rd),
      diskWriteBytes: Number(r.wr),
      folderMb: r.folder,
    }));
  }
}
