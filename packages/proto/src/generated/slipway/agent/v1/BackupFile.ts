// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Long } from '@grpc/proto-loader';

export interface BackupFile {
  'databaseId'?: (string);
  'backupId'?: (string);
  /**
   * relative to the agent's data folder: backups/<database_id>/<backup_id>.<ext>
   */
  'path'?: (string);
  'sizeBytes'?: (number | string | Long);
  'sha256'?: (string);
  'format'?: (string);
  'replayed'?: (boolean);
}

export interface BackupFile__Output {
  'databaseId': (string);
  'backupId': (string);
  /**
   * relative to the agent's data folder: backups/<database_id>/<backup_id>.<ext>
   */
  'path': (string);
  'sizeBytes': (string);
  'sha256': (string);
  'format': (string);
  'replayed': (boolean);
}
