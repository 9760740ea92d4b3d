// Original file: ../../proto/slipway/agent/v1/build.proto

import type { Long } from '@grpc/proto-loader';

export interface UploadZipResult {
  'size'?: (number | string | Long);
  'sha256'?: (string);
}

export interface UploadZipResult__Output {
  'size': (string);
  'sha256': (string);
}
