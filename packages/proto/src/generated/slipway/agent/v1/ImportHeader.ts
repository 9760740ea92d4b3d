// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { MovedFolder as _slipway_agent_v1_MovedFolder, MovedFolder__Output as _slipway_agent_v1_MovedFolder__Output } from '../../../slipway/agent/v1/MovedFolder';

export interface ImportHeader {
  'operationId'?: (string);
  'workspaceId'?: (string);
  /**
   * ImportFolder only.
   */
  'appId'?: (string);
  'diskMb'?: (number);
  'seededImageRef'?: (string);
  /**
   * Which folder (PROJECT: app_id's project folder, made at disk_mb; the others: database_id's).
   */
  'folder'?: (_slipway_agent_v1_MovedFolder);
  'databaseId'?: (string);
}

export interface ImportHeader__Output {
  'operationId': (string);
  'workspaceId': (string);
  /**
   * ImportFolder only.
   */
  'appId': (string);
  'diskMb': (number);
  'seededImageRef': (string);
  /**
   * Which folder (PROJECT: app_id's project folder, made at disk_mb; the others: database_id's).
   */
  'folder': (_slipway_agent_v1_MovedFolder__Output);
  'databaseId': (string);
}
