// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface UploadHeader {
  'operationId'?: (string);
  'size'?: (number | string | Long);
  /**
   * Hex SHA-256 of the whole file; the agent refuses a file that does not match.
   */
  'sha256'?: (string);
}

export interface UploadHeader__Output {
  'operationId': (string);
  'size': (string);
  /**
   * Hex SHA-256 of the whole file; the agent refuses a file that does not match.
   */
  'sha256': (string);
}
