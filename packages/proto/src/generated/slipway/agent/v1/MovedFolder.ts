// Original file: ../../proto/slipway/agent/v1/moves.proto

/**
 * Which folder ExportFolder sends and ImportFolder fills (decision 0037).
 */
export const MovedFolder = {
  /**
   * The app's project folder (app_id).
   */
  PROJECT: 'PROJECT',
  /**
   * A managed database's data folder (`databases/<database_id>/data`): exported only while its container is stopped
   * (the final, consistent copy); the import replaces the whole folder and refuses while a container of it runs here.
   */
  DATABASE_DATA: 'DATABASE_DATA',
  /**
   * A database's backup files (`backups/<database_id>/`, partial files left out); the import adds to the folder.
   */
  DATABASE_BACKUPS: 'DATABASE_BACKUPS',
} as const;

/**
 * Which folder ExportFolder sends and ImportFolder fills (decision 0037).
 */
export type MovedFolder =
  /**
   * The app's project folder (app_id).
   */
  | 'PROJECT'
  | 0
  /**
   * A managed database's data folder (`databases/<database_id>/data`): exported only while its container is stopped
   * (the final, consistent copy); the import replaces the whole folder and refuses while a container of it runs here.
   */
  | 'DATABASE_DATA'
  | 1
  /**
   * A database's backup files (`backups/<database_id>/`, partial files left out); the import adds to the folder.
   */
  | 'DATABASE_BACKUPS'
  | 2

/**
 * Which folder ExportFolder sends and ImportFolder fills (decision 0037).
 */
export type MovedFolder__Output = typeof MovedFolder[keyof typeof MovedFolder]
