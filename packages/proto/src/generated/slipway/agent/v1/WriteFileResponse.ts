// Original file: ../../proto/slipway/agent/v1/files.proto

import type { Long } from '@grpc/proto-loader';

export interface WriteFileResponse {
  'size'?: (number | string | Long);
}

export interface WriteFileResponse__Output {
  'size': (string);
}
