// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { Long } from '@grpc/proto-loader';

export interface ImportFolderResponse {
  'size'?: (number | string | Long);
}

export interface ImportFolderResponse__Output {
  'size': (string);
}
