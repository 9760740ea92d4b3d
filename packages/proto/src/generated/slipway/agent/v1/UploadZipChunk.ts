// Original file: ../../proto/slipway/agent/v1/build.proto

import type { UploadZipHeader as _slipway_agent_v1_UploadZipHeader, UploadZipHeader__Output as _slipway_agent_v1_UploadZipHeader__Output } from '../../../slipway/agent/v1/UploadZipHeader';
import type { UploadZipCommit as _slipway_agent_v1_UploadZipCommit, UploadZipCommit__Output as _slipway_agent_v1_UploadZipCommit__Output } from '../../../slipway/agent/v1/UploadZipCommit';

export interface UploadZipChunk {
  'header'?: (_slipway_agent_v1_UploadZipHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  'commit'?: (_slipway_agent_v1_UploadZipCommit | null);
  'part'?: "header"|"data"|"commit";
}

export interface UploadZipChunk__Output {
  'header'?: (_slipway_agent_v1_UploadZipHeader__Output | null);
  'data'?: (Buffer);
  'commit'?: (_slipway_agent_v1_UploadZipCommit__Output | null);
  'part'?: "header"|"data"|"commit";
}
