// Original file: ../../proto/slipway/agent/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface PullMetricsRequest {
  /**
   * The last minute the caller has stored (a minute index: epoch minutes); 0 at first.
   */
  'after'?: (number | string | Long);
  /**
   * At most this many minutes per answer (the agent caps it); 0: the agent's default.
   */
  'limitMinutes'?: (number);
}

export interface PullMetricsRequest__Output {
  /**
   * The last minute the caller has stored (a minute index: epoch minutes); 0 at first.
   */
  'after': (string);
  /**
   * At most this many minutes per answer (the agent caps it); 0: the agent's default.
   */
  'limitMinutes': (number);
}
