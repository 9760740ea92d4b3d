import type { PlanEntry, PlanRecord, PlanRepository } from '@slipway/core';
import type { Db } from '../client';
import type { Plan } from '../generated/client';

const toPlan = (p: Plan): PlanRecord => ({
  id: p.id,
  slug: p.slug,
  version: p.version,
  name: p.name,
  kind: p.kind as PlanRecord['kind'],
  priceCents: p.priceCents,
  currency: p.currency,
  cpuMillis: p.cpuMillis,
  memoryMb: p.memoryMb,
  maxMembers: p.maxMembers,
  diskMb: p.diskMb,
  minimums: p.minimums,
});

export class PrismaPlanRepository implements PlanRepository {
  constructor(private readonly db: Db) {}

  async insertMissing(entries: PlanEntry[]): Promise<PlanRecord[]> {
    // skipDuplicates: ON CONFLICT DO NOTHING, so API and worker starting together do not collide.
    await this.db.plan.createMany({ data: entries.map((e) => ({ ...e, minimums: e.minimums as object })), skipDuplicates: true });
    const rows = await this.db.plan.findMany({ where: { OR: entries.map((e) => ({ slug: e.slug, version: e.version })) } });
    return rows.map(toPlan);
  }

  async findById(planId: string): Promise<PlanRecord | null> {
    const p = await this.db.plan.findUnique({ where: { id: planId } });
    return p ? toPlan(p) : null;
  }

  async newest(slug: string): Promise<PlanRecord | null> {
    const p = await this.db.plan.findFirst({ where: { slug }, orderBy: { version: 'desc' } });
    return p ? toPlan(p) : null;
  }

  async catalog(): Promise<PlanRecord[]> {
    const rows = await this.db.plan.findMany({ where: { kind: 'paid' }, orderBy: [{ slug: 'asc' }, { version: 'desc' }] });
    const newest = new Map<string, Plan>();
    for (const p of rows) if (!newest.has(p.slug)) newest.set(p.slug, p);
    return [...newest.values()].map(toPlan);
  }
}
