// Original file: ../../proto/slipway/agent/v1/backups.proto

import type { Offsite as _slipway_agent_v1_Offsite, Offsite__Output as _slipway_agent_v1_Offsite__Output } from '../../../slipway/agent/v1/Offsite';

export interface RestoreBackupRequest {
  /**
   * the database loaded (running, same engine)
   */
  'databaseId'?: (string);
  'engine'?: (string);
  'username'?: (string);
  'databaseName'?: (string);
  'password'?: (string);
  /**
   * where the backup is kept
   */
  'sourceDatabaseId'?: (string);
  'backupId'?: (string);
  /**
   * the checksum the control plane recorded; the file must still have it
   */
  'sha256'?: (string);
  /**
   * Issue 33: when the file is not on this server (a server that never held the database), it is downloaded from
   * this destination and opened first (into backups/<source_database_id>/, removed after the load unless keep_local).
   */
  'offsite'?: (_slipway_agent_v1_Offsite | null);
}

export interface RestoreBackupRequest__Output {
  /**
   * the database loaded (running, same engine)
   */
  'databaseId': (string);
  'engine': (string);
  'username': (string);
  'databaseName': (string);
  'password': (string);
  /**
   * where the backup is kept
   */
  'sourceDatabaseId': (string);
  'backupId': (string);
  /**
   * the checksum the control plane recorded; the file must still have it
   */
  'sha256': (string);
  /**
   * Issue 33: when the file is not on this server (a server that never held the database), it is downloaded from
   * this destination and opened first (into backups/<source_database_id>/, removed after the load unless keep_local).
   */
  'offsite': (_slipway_agent_v1_Offsite__Output | null);
}
