// Original file: ../../proto/slipway/agent/v1/metrics.proto

import type { Long } from '@grpc/proto-loader';

export interface MetricPoint {
  /**
   * `app` or `database`.
   */
  'kind'?: (string);
  /**
   * The app's (or database's) id, from the container's labels.
   */
  'targetId'?: (string);
  /**
   * The workspace the workload belongs to (the container's label).
   */
  'workspaceId'?: (string);
  /**
   * The minute (epoch minutes) this point covers.
   */
  'minute'?: (number | string | Long);
  /**
   * Average CPU over the minute's samples, in millicores (1000 = one core busy).
   */
  'cpuMillis'?: (number);
  /**
   * Highest memory (without page cache) seen in the minute, MB.
   */
  'memoryMb'?: (number);
  'networkRxBytes'?: (number | string | Long);
  'networkTxBytes'?: (number | string | Long);
  'diskReadBytes'?: (number | string | Long);
  'diskWriteBytes'?: (number | string | Long);
  /**
   * The project folder's size as last measured (measured every few minutes); -1 when not known.
   */
  'folderMb'?: (number);
  /**
   * Samples folded into this point.
   */
  'samples'?: (number);
}

export interface MetricPoint__Output {
  /**
   * `app` or `database`.
   */
  'kind': (string);
  /**
   * The app's (or database's) id, from the container's labels.
   */
  'targetId': (string);
  /**
   * The workspace the workload belongs to (the container's label).
   */
  'workspaceId': (string);
  /**
   * The minute (epoch minutes) this point covers.
   */
  'minute': (string);
  /**
   * Average CPU over the minute's samples, in millicores (1000 = one core busy).
   */
  'cpuMillis': (number);
  /**
   * Highest memory (without page cache) seen in the minute, MB.
   */
  'memoryMb': (number);
  'networkRxBytes': (string);
  'networkTxBytes': (string);
  'diskReadBytes': (string);
  'diskWriteBytes': (string);
  /**
   * The project folder's size as last measured (measured every few minutes); -1 when not known.
   */
  'folderMb': (number);
  /**
   * Samples folded into this point.
   */
  'samples': (number);
}
