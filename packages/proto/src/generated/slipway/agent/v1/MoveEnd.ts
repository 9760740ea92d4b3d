// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { Long } from '@grpc/proto-loader';

export interface MoveEnd {
  'size'?: (number | string | Long);
}

export interface MoveEnd__Output {
  'size': (string);
}
