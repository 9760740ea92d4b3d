import { AppError } from '../errors';
import type { QuotaState } from '../ports/repositories';
import { assertMemberFits, assertReservationFits, effectiveLimits, isOverQuota, reservationShortfall } from './quota';

const state = (usage: Partial<QuotaState['usage']> = {}, extras: Partial<QuotaState['extras']> = {}, diskMb: number | null = 2048): QuotaState => ({
  plan: { cpuMillis: 1000, memoryMb: 1024, maxMembers: 3, diskMb },
  extras: { cpuMillis: 0, memoryMb: 0, members: 0, ...extras },
  usage: { cpuMillis: 0, memoryMb: 0, diskMb: 0, members: 1, ...usage },
});

describe('quota arithmetic', () => {
  it('adds extras to the plan', () => {
    expect(effectiveLimits(state({}, { cpuMillis: 500, memoryMb: 256, members: 2 }))).toEqual({ cpuMillis: 1500, memoryMb: 1280, maxMembers: 5, diskMb: 2048 });
  });

  it('accepts a reservation up to the limit exactly, and not one more', () => {
    expect(reservationShortfall(state({ cpuMillis: 900, memoryMb: 896 }), { cpuMillis: 100, memoryMb: 128 })).toEqual([]);
    expect(reservationShortfall(state({ cpuMillis: 900, memoryMb: 896 }), { cpuMillis: 101, memoryMb: 129 })).toEqual([
      { resource: 'cpuMillis', requested: 101, available: 100 },
      { resource: 'memoryMb', requested: 129, available: 128 },
    ]);
  });

  it('reports 0 available, never a negative number, when already over', () => {
    expect(reservationShortfall(state({ cpuMillis: 1200 }), { cpuMillis: 100, memoryMb: 0 })).toEqual([{ resource: 'cpuMillis', requested: 100, available: 0 }]);
  });

  it('lets a zero request through even when over quota (a shrink never fails)', () => {
    expect(reservationShortfall(state({ cpuMillis: 1200 }), { cpuMillis: 0, memoryMb: 0 })).toEqual([]);
  });

  it('throws 402 quota_exceeded with details', () => {
    let thrown: AppError | undefined;
    try {
      assertReservationFits(state({ memoryMb: 1000 }), { cpuMillis: 100, memoryMb: 128 });
    } catch (e) {
      thrown = e as AppError;
    }
    expect(thrown?.code).toBe('quota_exceeded');
    expect(thrown?.details).toEqual([{ resource: 'memoryMb', requested: 128, available: 24 }]);
  });

  it('reserves disk against the plan diskMb, and not at all on plan versions without one', () => {
    expect(reservationShortfall(state({ diskMb: 1536 }), { cpuMillis: 100, memoryMb: 128, diskMb: 512 })).toEqual([]);
    expect(reservationShortfall(state({ diskMb: 1536 }), { cpuMillis: 100, memoryMb: 128, diskMb: 1024 })).toEqual([{ resource: 'diskMb', requested: 1024, available: 512 }]);
    expect(reservationShortfall(state({ diskMb: 100_000 }, {}, null), { cpuMillis: 100, memoryMb: 128, diskMb: 1024 })).toEqual([]);
    expect(isOverQuota(state({ diskMb: 2049 }))).toBe(true);
    expect(isOverQuota(state({ diskMb: 2049 }, {}, null))).toBe(false);
  });

  it('counts members against maxMembers', () => {
    expect(() => assertMemberFits(state({ members: 2 }))).not.toThrow();
    expect(() => assertMemberFits(state({ members: 3 }))).toThrow(expect.objectContaining({ code: 'quota_exceeded', details: [{ resource: 'members', requested: 1, available: 0 }] }));
    expect(() => assertMemberFits(state({ members: 3 }, { members: 1 }))).not.toThrow();
  });

  it('says when usage passes a limit', () => {
    expect(isOverQuota(state({ cpuMillis: 1000, memoryMb: 1024, members: 3 }))).toBe(false);
    expect(isOverQuota(state({ memoryMb: 1025 }))).toBe(true);
    expect(isOverQuota(state({ members: 4 }))).toBe(true);
  });
});
