import type { PlanRecord } from '../ports/repositories';
import { catalogEntries, CATALOG_FILES, planDifferences } from './catalog';

describe('the plan catalog files', () => {
  it('hold a trial plan and paid plans, each (slug, version) once, with minimums for every resource type', () => {
    const entries = catalogEntries();
    expect(entries.find((e) => e.slug === 'trial')).toMatchObject({ kind: 'trial', priceCents: 0, cpuMillis: 1000, memoryMb: 1024, maxMembers: 3 });
    expect(entries.filter((e) => e.kind === 'paid').length).toBeGreaterThanOrEqual(2);
    expect(new Set(entries.map((e) => `${e.slug}@${e.version}`)).size).toBe(entries.length);
    for (const e of entries) expect(Object.keys(e.minimums as object).sort()).toEqual(['app', 'mongodb', 'mysql', 'postgres', 'redis']);
  });

  it('refuses a (slug, version) listed twice', () => {
    const file = CATALOG_FILES[0]!;
    expect(() => catalogEntries([file, file])).toThrow(/lists trial@1 twice/);
  });

  it('compares a stored row with its entry, whatever the key order of the minimums', () => {
    const entry = catalogEntries()[1]!;
    const reordered = Object.fromEntries(Object.entries(entry.minimums as object).reverse());
    const stored: PlanRecord = { id: 'x', ...entry, minimums: reordered };
    expect(planDifferences(stored, entry)).toEqual([]);
    expect(planDifferences({ ...stored, priceCents: entry.priceCents + 1 }, entry)).toEqual([
      `priceCents: stored ${entry.priceCents + 1}, file ${entry.priceCents}`,
    ]);
  });
});
