// Original file: ../../proto/slipway/agent/v1/agent.proto

import type { AppFolderUsage as _slipway_agent_v1_AppFolderUsage, AppFolderUsage__Output as _slipway_agent_v1_AppFolderUsage__Output } from '../../../slipway/agent/v1/AppFolderUsage';

export interface FolderUsageResponse {
  /**
   * Apps without a folder on this server are left out.
   */
  'folders'?: (_slipway_agent_v1_AppFolderUsage)[];
}

export interface FolderUsageResponse__Output {
  /**
   * Apps without a folder on this server are left out.
   */
  'folders': (_slipway_agent_v1_AppFolderUsage__Output)[];
}
