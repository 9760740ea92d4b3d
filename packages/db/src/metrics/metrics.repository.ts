import type { MetricBucket, MetricsQueryRepository } from '@slipway/core';
import type { SqlPool } from '../sql-pool';

// One statement per range query: the primary key (target_id, at) finds the workload's minutes of the window, the
// step's sums are made in PostgreSQL (at most 43,200 rows read for 30 days, 360 returned).
const BUCKETS = `
  SELECT floor(extract(epoch FROM at) / $5)::bigint * $5 AS step,
         round(avg(cpu_millis))::int AS cpu, max(memory_mb) AS mem,
         sum(network_rx_bytes)::text AS rx, sum(network_tx_bytes)::text AS tx,
         sum(disk_read_bytes)::text AS rd, sum(disk_write_bytes)::text AS wr, max(folder_mb) AS folder
  FROM metric_minutes
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
    const { rows } = await this.sql.query<Row>({
      name: 'metrics-buckets',
      text: BUCKETS,
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
