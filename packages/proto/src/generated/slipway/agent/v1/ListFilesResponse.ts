// Original file: ../../proto/slipway/agent/v1/files.proto

import type { FileEntry as _slipway_agent_v1_FileEntry, FileEntry__Output as _slipway_agent_v1_FileEntry__Output } from '../../../slipway/agent/v1/FileEntry';

export interface ListFilesResponse {
  'path'?: (string);
  'entries'?: (_slipway_agent_v1_FileEntry)[];
  'truncated'?: (boolean);
}

export interface ListFilesResponse__Output {
  'path': (string);
  'entries': (_slipway_agent_v1_FileEntry__Output)[];
  'truncated': (boolean);
}
