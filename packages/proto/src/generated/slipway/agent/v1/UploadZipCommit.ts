// Original file: ../../proto/slipway/agent/v1/build.proto

import type { Long } from '@grpc/proto-loader';

export interface UploadZipCommit {
  'size'?: (number | string | Long);
}

export interface UploadZipCommit__Output {
  'size': (string);
}
