import type { Minimums } from '@slipway/contracts';
import type { PlanEntry, PlanRecord } from '../ports/repositories';
import { RESOURCE_TYPES } from '../quota/quota.service';
import catalogV1 from './catalog.v1.json';
import catalogV2 from './catalog.v2.json';

interface CatalogFile {
  currency: string;
  minimums: Minimums;
  plans: { slug: string; version: number; name: string; kind: string; priceCents: number; limits: { cpuMillis: number; memoryMb: number; maxMembers: number; diskMb?: number } }[];
}

/** Every catalog file, oldest first. A new catalog is a new file appended here; old files stay as they are. */
export const CATALOG_FILES: readonly CatalogFile[] = [catalogV1 as CatalogFile, catalogV2 as CatalogFile];

/** The plan versions of the catalog files, checked for consistency. */
export function catalogEntries(files: readonly CatalogFile[] = CATALOG_FILES): PlanEntry[] {
  const entries: PlanEntry[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    for (const type of RESOURCE_TYPES) {
      if (!file.minimums[type]) throw new Error(`The plan catalog lacks minimums for ${type}`);
    }
    for (const p of file.plans) {
      const key = `${p.slug}@${p.version}`;
      if (seen.has(key)) throw new Error(`The plan catalog lists ${key} twice`);
      seen.add(key);
      if (p.kind !== 'trial' && p.kind !== 'paid') throw new Error(`Plan ${key} has an unknown kind ${p.kind}`);
      if (!Number.isInteger(p.version) || p.version < 1) throw new Error(`Plan ${key} needs a version >= 1`);
      entries.push({
        slug: p.slug,
        version: p.version,
        name: p.name,
        kind: p.kind,
        priceCents: p.priceCents,
        currency: file.currency,
        cpuMillis: p.limits.cpuMillis,
        memoryMb: p.limits.memoryMb,
        maxMembers: p.limits.maxMembers,
        // Versions from before disk was a plan resource have no disk limit.
        diskMb: p.limits.diskMb ?? null,
        minimums: file.minimums,
      });
    }
  }
  if (!entries.some((e) => e.kind === 'trial' && e.slug === 'trial')) throw new Error('The plan catalog has no trial plan');
  return entries;
}

/** The fields in which a stored plan version differs from its catalog entry (empty when identical). */
export function planDifferences(stored: PlanRecord, entry: PlanEntry): string[] {
  const fields = ['name', 'kind', 'priceCents', 'currency', 'cpuMillis', 'memoryMb', 'maxMembers', 'diskMb', 'minimums'] as const;
  return fields
    .filter((f) => canonical(stored[f]) !== canonical(entry[f]))
    .map((f) => `${f}: stored ${canonical(stored[f])}, file ${canonical(entry[f])}`);
}

/** JSON with sorted keys, so two equal objects compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
