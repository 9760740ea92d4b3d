// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface UploadResult {
  'operationId'?: (string);
  'size'?: (number | string | Long);
  'sha256'?: (string);
  'replayed'?: (boolean);
}

export interface UploadResult__Output {
  'operationId': (string);
  'size': (string);
  'sha256': (string);
  'replayed': (boolean);
}
