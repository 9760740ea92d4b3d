import type { DatabaseStatus } from '@slipway/contracts';
import { BACKUP_TRANSITIONS, backupSources, canMoveBackup } from '../backups/backup-state';
import type { BackupStatus } from '../backups/backup.ports';
import { canMoveDatabase, DATABASE_TRANSITIONS, databaseMoveFrom, databaseSources } from './database-state';

const DATABASE: DatabaseStatus[] = ['provisioning', 'running', 'stopped', 'updating', 'restoring', 'failed', 'deleting'];
const BACKUP: BackupStatus[] = ['pending', 'running', 'completed', 'failed'];

// Every move allowed, written out once more by hand: a move added to the table without a thought fails here.
const DATABASE_ALLOWED = new Set([
  'provisioning→provisioning', 'provisioning→running', 'provisioning→stopped', 'provisioning→failed', 'provisioning→deleting',
  'running→running', 'running→stopped', 'running→updating', 'running→restoring', 'running→failed', 'running→deleting',
  'stopped→stopped', 'stopped→running', 'stopped→updating', 'stopped→failed', 'stopped→deleting',
  'updating→updating', 'updating→running', 'updating→stopped', 'updating→failed', 'updating→deleting',
  'restoring→restoring', 'restoring→running', 'restoring→failed', 'restoring→deleting',
  'failed→failed', 'failed→provisioning', 'failed→running', 'failed→stopped', 'failed→deleting',
]);
const BACKUP_ALLOWED = new Set(['pending→running', 'pending→completed', 'pending→failed', 'running→running', 'running→pending', 'running→completed', 'running→failed']);

describe('database state table', () => {
  it('covers every status the contract names', () => {
    expect(Object.keys(DATABASE_TRANSITIONS).sort()).toEqual([...DATABASE].sort());
  });

  it.each(DATABASE.flatMap((from) => DATABASE.map((to) => [from, to] as const)))('%s → %s: allowed only when listed', (from, to) => {
    expect(canMoveDatabase(from, to)).toBe(DATABASE_ALLOWED.has(`${from}→${to}`));
  });

  it('never leaves deleting, never provisions a running database, restores only a running one', () => {
    expect(DATABASE.filter((to) => canMoveDatabase('deleting', to))).toEqual([]);
    expect(databaseSources('provisioning').sort()).toEqual(['failed', 'provisioning']);
    expect(databaseSources('restoring').sort()).toEqual(['restoring', 'running']);
    expect(databaseSources('updating').sort()).toEqual(['running', 'stopped', 'updating']);
  });

  it('narrows what a caller allows to what the table allows', () => {
    expect(databaseMoveFrom(['restoring', 'stopped', 'deleting'], 'running')).toEqual(['restoring', 'stopped']);
    expect(databaseMoveFrom(['provisioning', 'stopped'], 'restoring')).toEqual([]);
  });
});

describe('backup state table', () => {
  it('covers every status', () => {
    expect(Object.keys(BACKUP_TRANSITIONS).sort()).toEqual([...BACKUP].sort());
  });

  it.each(BACKUP.flatMap((from) => BACKUP.map((to) => [from, to] as const)))('%s → %s: allowed only when listed', (from, to) => {
    expect(canMoveBackup(from, to)).toBe(BACKUP_ALLOWED.has(`${from}→${to}`));
  });

  it('completed and failed are final; only a running try hands a backup back to pending', () => {
    expect(BACKUP.filter((to) => canMoveBackup('completed', to))).toEqual([]);
    expect(BACKUP.filter((to) => canMoveBackup('failed', to))).toEqual([]);
    expect(backupSources('pending')).toEqual(['running']);
    expect(backupSources('failed').sort()).toEqual(['pending', 'running']);
  });
});
