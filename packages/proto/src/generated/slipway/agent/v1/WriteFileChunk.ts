// Original file: ../../proto/slipway/agent/v1/files.proto

import type { WriteFileHeader as _slipway_agent_v1_WriteFileHeader, WriteFileHeader__Output as _slipway_agent_v1_WriteFileHeader__Output } from '../../../slipway/agent/v1/WriteFileHeader';
import type { WriteFileCommit as _slipway_agent_v1_WriteFileCommit, WriteFileCommit__Output as _slipway_agent_v1_WriteFileCommit__Output } from '../../../slipway/agent/v1/WriteFileCommit';

export interface WriteFileChunk {
  'header'?: (_slipway_agent_v1_WriteFileHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  'commit'?: (_slipway_agent_v1_WriteFileCommit | null);
  'part'?: "header"|"data"|"commit";
}

export interface WriteFileChunk__Output {
  'header'?: (_slipway_agent_v1_WriteFileHeader__Output | null);
  'data'?: (Buffer);
  'commit'?: (_slipway_agent_v1_WriteFileCommit__Output | null);
  'part'?: "header"|"data"|"commit";
}
