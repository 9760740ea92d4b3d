// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { MoveEnd as _slipway_agent_v1_MoveEnd, MoveEnd__Output as _slipway_agent_v1_MoveEnd__Output } from '../../../slipway/agent/v1/MoveEnd';

export interface MoveChunk {
  'data'?: (Buffer | Uint8Array | string);
  'end'?: (_slipway_agent_v1_MoveEnd | null);
  'part'?: "data"|"end";
}

export interface MoveChunk__Output {
  'data'?: (Buffer);
  'end'?: (_slipway_agent_v1_MoveEnd__Output | null);
  'part'?: "data"|"end";
}
