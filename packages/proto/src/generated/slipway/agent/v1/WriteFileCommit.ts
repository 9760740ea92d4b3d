// Original file: ../../proto/slipway/agent/v1/files.proto

import type { Long } from '@grpc/proto-loader';

export interface WriteFileCommit {
  /**
   * Bytes sent; the agent refuses a commit that does not match what it received.
   */
  'size'?: (number | string | Long);
}

export interface WriteFileCommit__Output {
  /**
   * Bytes sent; the agent refuses a commit that does not match what it received.
   */
  'size': (string);
}
