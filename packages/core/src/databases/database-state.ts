import type { DatabaseStatus } from '@slipway/contracts';
import { stateTable } from '../state-table';

/**
 * The one table of allowed database moves (issue 27). Every status write is a conditional update whose sources come
 * from here (`UPDATE … WHERE status IN (databaseSources(to))`), whoever writes it: the intents of the request side,
 * the converge, rotate and teardown jobs, the backups' restores. A move to the same status is a settlement that
 * changes only the message or the time; `deleting` is final (the row goes once its data is erased).
 */
export const DATABASE_TRANSITIONS: Record<DatabaseStatus, readonly DatabaseStatus[]> = {
  // Created; running once the engine accepts an authenticated connection, stopped when asked meanwhile.
  provisioning: ['provisioning', 'running', 'stopped', 'failed', 'deleting'],
  // updating: a resize or a rotation; restoring: a backup being loaded into it; provisioning: never (it exists).
  running: ['running', 'stopped', 'updating', 'restoring', 'failed', 'deleting'],
  stopped: ['stopped', 'running', 'updating', 'failed', 'deleting'],
  updating: ['updating', 'running', 'stopped', 'failed', 'deleting'],
  // The restore ends running (loaded, or nothing changed) or failed (the data from before is in its pre-restore backup).
  restoring: ['restoring', 'running', 'failed', 'deleting'],
  // A start of a failed database provisions it again; a convergence may find it running or stopped.
  failed: ['failed', 'provisioning', 'running', 'stopped', 'deleting'],
  deleting: [],
};

/** `databaseSources(to)`: the statuses a database may be in for a move to `to`. */
export const { canMove: canMoveDatabase, sourcesOf: databaseSources } = stateTable(DATABASE_TRANSITIONS);

/** The sources of a move to `to` among `from` (what a caller allows, narrowed to what the table allows). */
export const databaseMoveFrom = (from: readonly DatabaseStatus[], to: DatabaseStatus): DatabaseStatus[] => from.filter((s) => canMoveDatabase(s, to));
