// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { Long } from '@grpc/proto-loader';

export interface ImportImagesResponse {
  'imageRefs'?: (string)[];
  'size'?: (number | string | Long);
}

export interface ImportImagesResponse__Output {
  'imageRefs': (string)[];
  'size': (string);
}
