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
  /**
   * With `offsite`: the stored object's key, size and SHA-256 (of the sealed bytes), read back before the answer.
   * `path` is empty when no local copy was kept.
   */
  'remoteKey'?: (string);
  'remoteSizeBytes'?: (number | string | Long);
  'remoteSha256'?: (string);
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
  /**
   * With `offsite`: the stored object's key, size and SHA-256 (of the sealed bytes), read back before the answer.
   * `path` is empty when no local copy was kept.
   */
  'remoteKey': (string);
  'remoteSizeBytes': (string);
  'remoteSha256': (string);
}
