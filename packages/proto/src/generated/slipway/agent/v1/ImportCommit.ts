// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { Long } from '@grpc/proto-loader';

export interface ImportCommit {
  /**
   * Bytes sent; the agent refuses a commit that does not match what it received.
   */
  'size'?: (number | string | Long);
}

export interface ImportCommit__Output {
  /**
   * Bytes sent; the agent refuses a commit that does not match what it received.
   */
  'size': (string);
}
