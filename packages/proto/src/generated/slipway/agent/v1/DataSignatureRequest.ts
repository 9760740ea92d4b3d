// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface DataSignatureRequest {
  'databaseId'?: (string);
  /**
   * Bytes per block: 4 KiB to 16 MiB.
   */
  'blockSize'?: (number);
}

export interface DataSignatureRequest__Output {
  'databaseId': (string);
  /**
   * Bytes per block: 4 KiB to 16 MiB.
   */
  'blockSize': (number);
}
