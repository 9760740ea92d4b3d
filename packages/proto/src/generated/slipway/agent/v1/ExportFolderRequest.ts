// Original file: ../../proto/slipway/agent/v1/moves.proto

import type { MovedFolder as _slipway_agent_v1_MovedFolder, MovedFolder__Output as _slipway_agent_v1_MovedFolder__Output } from '../../../slipway/agent/v1/MovedFolder';

export interface ExportFolderRequest {
  'appId'?: (string);
  'folder'?: (_slipway_agent_v1_MovedFolder);
  'databaseId'?: (string);
  /**
   * DATABASE_DATA only: sent while the engine runs (a pre-copy: files changing or vanishing as they are read are
   * accepted; the delta made once it is stopped corrects them).
   */
  'live'?: (boolean);
  /**
   * DATABASE_DATA and DATABASE_BACKUPS: the tar compressed with zstd (level 1). Importers tell it by zstd's magic number.
   */
  'zstd'?: (boolean);
}

export interface ExportFolderRequest__Output {
  'appId': (string);
  'folder': (_slipway_agent_v1_MovedFolder__Output);
  'databaseId': (string);
  /**
   * DATABASE_DATA only: sent while the engine runs (a pre-copy: files changing or vanishing as they are read are
   * accepted; the delta made once it is stopped corrects them).
   */
  'live': (boolean);
  /**
   * DATABASE_DATA and DATABASE_BACKUPS: the tar compressed with zstd (level 1). Importers tell it by zstd's magic number.
   */
  'zstd': (boolean);
}
