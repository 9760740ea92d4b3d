// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { ImportHeader as _slipway_agent_v1_ImportHeader, ImportHeader__Output as _slipway_agent_v1_ImportHeader__Output } from '../../../slipway/agent/v1/ImportHeader';
import type { ImportCommit as _slipway_agent_v1_ImportCommit, ImportCommit__Output as _slipway_agent_v1_ImportCommit__Output } from '../../../slipway/agent/v1/ImportCommit';

export interface ImportChunk {
  'header'?: (_slipway_agent_v1_ImportHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  'commit'?: (_slipway_agent_v1_ImportCommit | null);
  'part'?: "header"|"data"|"commit";
}

export interface ImportChunk__Output {
  'header'?: (_slipway_agent_v1_ImportHeader__Output | null);
  'data'?: (Buffer);
  'commit'?: (_slipway_agent_v1_ImportCommit__Output | null);
  'part'?: "header"|"data"|"commit";
}
