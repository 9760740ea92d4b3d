import type { MetricsService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

/** An app's metrics (spec 4.2): one read of the minute rows, scoped to the caller's workspace. */
export function metricRoutes(s: { metrics: MetricsService }): HandlerTable {
  return {
    getAppMetrics: ({ access, params, query }) => s.metrics.appMetrics(access, params.appId, query.range),
  };
}
