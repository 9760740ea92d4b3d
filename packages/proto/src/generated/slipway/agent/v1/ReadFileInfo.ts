// Original file: ../../proto/slipway/agent/v1/files.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadFileInfo {
  'size'?: (number | string | Long);
  'name'?: (string);
}

export interface ReadFileInfo__Output {
  'size': (string);
  'name': (string);
}
