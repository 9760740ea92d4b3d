// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { UploadHeader as _slipway_agent_v1_UploadHeader, UploadHeader__Output as _slipway_agent_v1_UploadHeader__Output } from '../../../slipway/agent/v1/UploadHeader';

export interface UploadChunk {
  'header'?: (_slipway_agent_v1_UploadHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  'part'?: "header"|"data";
}

export interface UploadChunk__Output {
  'header'?: (_slipway_agent_v1_UploadHeader__Output | null);
  'data'?: (Buffer);
  'part'?: "header"|"data";
}
