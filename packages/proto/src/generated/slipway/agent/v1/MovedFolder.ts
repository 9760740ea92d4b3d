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
   * A managed database's data folder (`databases/<database_id>/data`): exported while its container is stopped, or
   * while it runs with `live` (a pre-copy); the import is unpacked as it arrives into a folder beside it that replaces
   * the data folder once the commit arrived, and is refused while a container of it runs here.
   */
  DATABASE_DATA: 'DATABASE_DATA',
  /**
   * A database's backup files (`backups/<database_id>/`, partial files left out); the import adds to the folder.
   */
  DATABASE_BACKUPS: 'DATABASE_BACKUPS',
  /**
   * Import only: a delta of ExportDataDelta, applied to the database's data folder here once it all arrived (refused
   * while a container of it runs here).
   */
  DATABASE_DATA_DELTA: 'DATABASE_DATA_DELTA',
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
   * A managed database's data folder (`databases/<database_id>/data`): exported while its container is stopped, or
   * while it runs with `live` (a pre-copy); the import is unpacked as it arrives into a folder beside it that replaces
   * the data folder once the commit arrived, and is refused while a container of it runs here.
   */
  | 'DATABASE_DATA'
  | 1
  /**
   * A database's backup files (`backups/<database_id>/`, partial files left out); the import adds to the folder.
   */
  | 'DATABASE_BACKUPS'
  | 2
  /**
   * Import only: a delta of ExportDataDelta, applied to the database's data folder here once it all arrived (refused
   * while a container of it runs here).
   */
  | 'DATABASE_DATA_DELTA'
  | 3

/**
 * Which folder ExportFolder sends and ImportFolder fills (decision 0037).
 */
export type MovedFolder__Output = typeof MovedFolder[keyof typeof MovedFolder]
