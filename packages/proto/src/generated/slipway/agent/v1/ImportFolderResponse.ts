// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { Long } from '@grpc/proto-loader';

export interface ImportFolderResponse {
  'size'?: (number | string | Long);
  /**
   * DATABASE_DATA: the bytes of the tar unpacked (after decompression): about the data folder's size.
   */
  'unpackedSize'?: (number | string | Long);
}

export interface ImportFolderResponse__Output {
  'size': (string);
  /**
   * DATABASE_DATA: the bytes of the tar unpacked (after decompression): about the data folder's size.
   */
  'unpackedSize': (string);
}
