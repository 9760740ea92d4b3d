// Original file: ../../proto/slipway/agent/v1/moves.proto


export interface ExportDataDeltaRequest {
  'databaseId'?: (string);
  /**
   * What the target holds (DataSignature's bytes).
   */
  'signature'?: (Buffer | Uint8Array | string);
  /**
   * Made while the engine runs (see ExportDataDelta).
   */
  'live'?: (boolean);
  /**
   * The delta compressed with zstd (level 1). Importers tell it by zstd's magic number.
   */
  'zstd'?: (boolean);
}

export interface ExportDataDeltaRequest__Output {
  'databaseId': (string);
  /**
   * What the target holds (DataSignature's bytes).
   */
  'signature': (Buffer);
  /**
   * Made while the engine runs (see ExportDataDelta).
   */
  'live': (boolean);
  /**
   * The delta compressed with zstd (level 1). Importers tell it by zstd's magic number.
   */
  'zstd': (boolean);
}
