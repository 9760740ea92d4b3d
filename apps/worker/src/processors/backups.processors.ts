import type { BackupJobService } from '@slipway/core';
import type { Processors } from './processor';

/** Database backups (issue 13): each processor calls one method of BackupJobService. */
export function backupProcessors(backups: BackupJobService): Pick<Processors, 'backup.run' | 'backup.restore' | 'backup.verify' | 'backup.schedule' | 'backup.prune'> {
  return {
    'backup.run': (payload, ctx) => backups.run(payload.backupId, ctx.attempt, payload.nightTries ?? []),
    'backup.restore': (payload, ctx) => backups.restore(payload, ctx.attempt),
    'backup.verify': (payload) => backups.verify(payload.backupId),
    'backup.schedule': () => backups.schedule(),
    'backup.prune': () => backups.prune(),
  };
}
