// Original file: ../../proto/slipway/agent/v1/agent.proto


export interface LogChunk {
  /**
   * stdout or stderr
   */
  'stream'?: (string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface LogChunk__Output {
  /**
   * stdout or stderr
   */
  'stream': (string);
  'data': (Buffer);
}
