// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { ReadBackupInfo as _slipway_agent_v1_ReadBackupInfo, ReadBackupInfo__Output as _slipway_agent_v1_ReadBackupInfo__Output } from '../../../slipway/agent/v1/ReadBackupInfo';

export interface ReadBackupChunk {
  'info'?: (_slipway_agent_v1_ReadBackupInfo | null);
  'data'?: (Buffer | Uint8Array | string);
  'part'?: "info"|"data";
}

export interface ReadBackupChunk__Output {
  'info'?: (_slipway_agent_v1_ReadBackupInfo__Output | null);
  'data'?: (Buffer);
  'part'?: "info"|"data";
}
