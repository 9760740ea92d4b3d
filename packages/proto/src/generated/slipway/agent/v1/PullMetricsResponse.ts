// Original file: ../../proto/slipway/agent/v1/metrics.proto

import type { MetricPoint as _slipway_agent_v1_MetricPoint, MetricPoint__Output as _slipway_agent_v1_MetricPoint__Output } from '../../../slipway/agent/v1/MetricPoint';
import type { Long } from '@grpc/proto-loader';

export interface PullMetricsResponse {
  'points'?: (_slipway_agent_v1_MetricPoint)[];
  /**
   * The newest minute included: the next call's `after`. Equals the request's `after` when there was nothing new.
   */
  'cursor'?: (number | string | Long);
  /**
   * true when no closed minute is left after `cursor`.
   */
  'done'?: (boolean);
}

export interface PullMetricsResponse__Output {
  'points': (_slipway_agent_v1_MetricPoint__Output)[];
  /**
   * The newest minute included: the next call's `after`. Equals the request's `after` when there was nothing new.
   */
  'cursor': (string);
  /**
   * true when no closed minute is left after `cursor`.
   */
  'done': (boolean);
}
