import type { LogRetentionStore } from '@slipway/core';
import type { Db } from '../client';

export class PrismaLogRetentionStore implements LogRetentionStore {
  constructor(private readonly db: Db) {}

  async pruneLogs(input: { keepPerApp: number; olderThan: Date }): Promise<{ deployments: number; lines: number }> {
    // One statement: the deployments past the retention (by number within the app, or by age), never the app's
    // current one nor one still running, then their lines. Every app's newest deployments keep their logs.
    const rows = await this.db.$queryRaw<{ deployments: number; lines: number }[]>`
      WITH old AS (
        SELECT d.id FROM (
          SELECT id, app_id, status, created_at, row_number() OVER (PARTITION BY app_id ORDER BY number DESC) AS rn
          FROM deployments
        ) d JOIN apps a ON a.id = d.app_id
        WHERE (d.rn > ${input.keepPerApp} OR d.created_at < ${input.olderThan})
          AND d.id IS DISTINCT FROM a.current_deployment_id
          AND d.status NOT IN ('queued', 'building', 'deploying')
      ), gone AS (
        DELETE FROM deployment_log_lines l USING old WHERE l.deployment_id = old.id RETURNING l.deployment_id
      )
      SELECT COUNT(DISTINCT deployment_id)::int AS deployments, COUNT(*)::int AS lines FROM gone`;
    return rows[0] ?? { deployments: 0, lines: 0 };
  }
}
