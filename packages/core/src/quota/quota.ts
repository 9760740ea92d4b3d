import type { PlanLimits } from '@slipway/contracts';
import { AppError } from '../errors';
import type { QuotaState } from '../ports/repositories';

/** One resource that does not fit: what was asked and what is left. */
export interface QuotaShortfall {
  resource: 'cpuMillis' | 'memoryMb' | 'diskMb' | 'members';
  requested: number;
  available: number;
}

/** The plan's limits plus the workspace's extras. */
export function effectiveLimits(state: Pick<QuotaState, 'plan' | 'extras'>): PlanLimits {
  return {
    cpuMillis: state.plan.cpuMillis + state.extras.cpuMillis,
    memoryMb: state.plan.memoryMb + state.extras.memoryMb,
    maxMembers: state.plan.maxMembers + state.extras.members,
    diskMb: state.plan.diskMb,
  };
}

/** Whether usage already passes a limit (after a downgrade or removed extras). */
export function isOverQuota(state: QuotaState): boolean {
  const limits = effectiveLimits(state);
  return (
    state.usage.cpuMillis > limits.cpuMillis ||
    state.usage.memoryMb > limits.memoryMb ||
    (limits.diskMb !== null && state.usage.diskMb > limits.diskMb) ||
    state.usage.members > limits.maxMembers
  );
}

/** What a reservation of `request` on top of `state.usage` would exceed; empty when it fits. */
export function reservationShortfall(state: QuotaState, request: { cpuMillis: number; memoryMb: number; diskMb?: number }): QuotaShortfall[] {
  const limits = effectiveLimits(state);
  const out: QuotaShortfall[] = [];
  const check = (resource: 'cpuMillis' | 'memoryMb' | 'diskMb', limit: number, used: number, requested: number) => {
    if (requested > 0 && used + requested > limit) out.push({ resource, requested, available: Math.max(0, limit - used) });
  };
  check('cpuMillis', limits.cpuMillis, state.usage.cpuMillis, request.cpuMillis);
  check('memoryMb', limits.memoryMb, state.usage.memoryMb, request.memoryMb);
  // Plan versions from before disk was a plan resource have no disk limit.
  if (limits.diskMb !== null) check('diskMb', limits.diskMb, state.usage.diskMb, request.diskMb ?? 0);
  return out;
}

/** Throws 402 quota_exceeded, with a detail per resource, when the reservation does not fit. */
export function assertReservationFits(state: QuotaState, request: { cpuMillis: number; memoryMb: number; diskMb?: number }): void {
  const shortfall = reservationShortfall(state, request);
  if (shortfall.length) throw quotaExceeded(shortfall);
}

/** Throws 402 quota_exceeded when one more member would pass maxMembers. */
export function assertMemberFits(state: QuotaState): void {
  const limit = effectiveLimits(state).maxMembers;
  if (state.usage.members + 1 > limit) {
    throw quotaExceeded([{ resource: 'members', requested: 1, available: Math.max(0, limit - state.usage.members) }]);
  }
}

function quotaExceeded(shortfall: QuotaShortfall[]): AppError {
  const names = shortfall.map((s) => s.resource).join(' and ');
  return new AppError('quota_exceeded', `The plan's limit of ${names} would be exceeded`, shortfall.map((s) => ({ ...s })));
}
