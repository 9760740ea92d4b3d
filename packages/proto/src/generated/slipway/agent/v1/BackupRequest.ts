// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Offsite as _slipway_agent_v1_Offsite, Offsite__Output as _slipway_agent_v1_Offsite__Output } from '../../../slipway/agent/v1/Offsite';

export interface BackupRequest {
  'databaseId'?: (string);
  'backupId'?: (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine'?: (string);
  'username'?: (string);
  'databaseName'?: (string);
  'password'?: (string);
  /**
   * VerifyBackup: also load the file into a throw-away container of the engine's image (no network), removed after.
   */
  'load'?: (boolean);
  /**
   * Issue 33: the backup also goes to (CreateBackup), or is checked at (VerifyBackup, when no file is here), an
   * S3-compatible destination. Absent: a file on this server only, as before.
   */
  'offsite'?: (_slipway_agent_v1_Offsite | null);
}

export interface BackupRequest__Output {
  'databaseId': (string);
  'backupId': (string);
  /**
   * postgres, mysql, redis, mongodb
   */
  'engine': (string);
  'username': (string);
  'databaseName': (string);
  'password': (string);
  /**
   * VerifyBackup: also load the file into a throw-away container of the engine's image (no network), removed after.
   */
  'load': (boolean);
  /**
   * Issue 33: the backup also goes to (CreateBackup), or is checked at (VerifyBackup, when no file is here), an
   * S3-compatible destination. Absent: a file on this server only, as before.
   */
  'offsite': (_slipway_agent_v1_Offsite__Output | null);
}
