// Original file: ../../proto/slipway/agent/v1/files.proto

import type { ReadFileInfo as _slipway_agent_v1_ReadFileInfo, ReadFileInfo__Output as _slipway_agent_v1_ReadFileInfo__Output } from '../../../slipway/agent/v1/ReadFileInfo';

export interface ReadFileChunk {
  'info'?: (_slipway_agent_v1_ReadFileInfo | null);
  'data'?: (Buffer | Uint8Array | string);
  'part'?: "info"|"data";
}

export interface ReadFileChunk__Output {
  'info'?: (_slipway_agent_v1_ReadFileInfo__Output | null);
  'data'?: (Buffer);
  'part'?: "info"|"data";
}
