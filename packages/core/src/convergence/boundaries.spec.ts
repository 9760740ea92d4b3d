// The wings sit on the shared layers, not on apps (issue 27): databases, backups, reconcile and convergence import
// nothing of core/apps/ (locks, journal ids and the converger interface live here, in convergence/).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const WINGS = ['databases', 'backups', 'reconcile', 'convergence'];

describe('core wings', () => {
  it.each(WINGS)('%s/ imports nothing of apps/', (wing) => {
    const dir = path.join(__dirname, '..', wing);
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '\.\.\/apps\//.test(readFileSync(path.join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
