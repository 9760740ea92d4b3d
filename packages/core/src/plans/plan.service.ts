import type { CatalogPlan, Minimums, WorkspacePlan } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import type { PlanEntry, PlanRecord, PlanRepository, ReservationRepository } from '../ports/repositories';
import { effectiveLimits, isOverQuota } from '../quota/quota';
import { catalogEntries, planDifferences } from './catalog';

/** Thrown at start-up when a stored plan version differs from the catalog file: a published version never changes. */
export class PlanCatalogConflict extends Error {
  constructor(readonly conflicts: string[]) {
    super(`The plan catalog changes published plan versions (add a new version instead):\n  - ${conflicts.join('\n  - ')}`);
    this.name = 'PlanCatalogConflict';
  }
}

const toCatalogPlan = (p: PlanRecord): CatalogPlan => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  kind: 'paid',
  version: p.version,
  priceCents: p.priceCents,
  currency: p.currency,
  limits: { cpuMillis: p.cpuMillis, memoryMb: p.memoryMb, maxMembers: p.maxMembers, diskMb: p.diskMb },
});

export class PlanService {
  constructor(
    private readonly deps: {
      plans: PlanRepository;
      reservations: ReservationRepository;
      entries?: PlanEntry[];
    },
  ) {}

  /** Inserts the catalog's missing plan versions; throws PlanCatalogConflict when a stored one differs. */
  async seed(): Promise<{ plans: number }> {
    const entries = this.deps.entries ?? catalogEntries();
    const stored = await this.deps.plans.insertMissing(entries);
    const byKey = new Map(stored.map((p) => [`${p.slug}@${p.version}`, p]));
    const conflicts: string[] = [];
    for (const entry of entries) {
      const row = byKey.get(`${entry.slug}@${entry.version}`);
      if (!row) throw new Error(`Plan ${entry.slug}@${entry.version} was not stored`);
      for (const d of planDifferences(row, entry)) conflicts.push(`${entry.slug} v${entry.version}: ${d}`);
    }
    if (conflicts.length) throw new PlanCatalogConflict(conflicts);
    return { plans: entries.length };
  }

  /** The public catalog: the newest version of each paid plan, cheapest first. */
  async catalog(): Promise<CatalogPlan[]> {
    const plans = await this.deps.plans.catalog();
    return plans.map(toCatalogPlan).sort((a, b) => a.priceCents - b.priceCents || a.slug.localeCompare(b.slug));
  }

  async forWorkspace(access: WorkspaceAccess): Promise<WorkspacePlan> {
    const w = access.workspace;
    const [plan, state] = await Promise.all([this.deps.plans.findById(w.planId), this.deps.reservations.state({ workspaceId: w.id })]);
    if (!plan) throw new Error(`Workspace ${w.id} refers to a missing plan`);
    return {
      status: w.billingStatus as WorkspacePlan['status'],
      plan: { id: plan.id, slug: plan.slug, name: plan.name, kind: plan.kind, version: plan.version, priceCents: plan.priceCents },
      trialEndsAt: w.trialEndsAt.toISOString(),
      graceEndsAt: w.graceEndsAt.toISOString(),
      suspendedAt: w.suspendedAt?.toISOString() ?? null,
      limits: effectiveLimits(state),
      usage: state.usage,
      overQuota: isOverQuota(state),
      // From the same read as the limits (the workspace of the request's access may be a moment older: decision 0041).
      hasExtras: state.extras.cpuMillis > 0 || state.extras.memoryMb > 0 || state.extras.members > 0,
      minimums: plan.minimums as Minimums,
    };
  }

}
