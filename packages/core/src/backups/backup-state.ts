import { stateTable } from '../state-table';
import type { BackupStatus } from './backup.ports';

/**
 * The one table of allowed backup moves (issue 27): pending → running → completed | failed. `running → pending` is a
 * try that failed for a transient reason handing the row back to the next try; `pending → failed` a backup refused
 * before it ran (a skipped night, a database gone) or a job failed for good; completed and failed are final.
 */
export const BACKUP_TRANSITIONS: Record<BackupStatus, readonly BackupStatus[]> = {
  pending: ['running', 'completed', 'failed'],
  running: ['running', 'pending', 'completed', 'failed'],
  completed: [],
  failed: [],
};

/** `backupSources(to)`: the statuses a backup may be in for a move to `to`. */
export const { canMove: canMoveBackup, sourcesOf: backupSources } = stateTable(BACKUP_TRANSITIONS);
