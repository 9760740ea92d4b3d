import { expiryOf, fromLocal, latestSlot, localDate, slotMinute, windowMinutes } from './schedule';

const UTC = { window: { startHour: 1, endHour: 5 }, timeZone: 'UTC' };

describe('the nightly backup schedule', () => {
  it('spreads databases over the window, each at a stable minute', () => {
    const minutes = Array.from({ length: 200 }, (_, i) => slotMinute(`db-${i}`, UTC.window));
    expect(Math.min(...minutes)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...minutes)).toBeLessThan(240);
    // Spread: the four hours of the window all get some.
    expect(new Set(minutes.map((m) => Math.floor(m / 60))).size).toBe(4);
    expect(slotMinute('db-1', UTC.window)).toBe(slotMinute('db-1', UTC.window));
  });

  it('windows past midnight', () => {
    expect(windowMinutes({ startHour: 22, endHour: 2 })).toBe(240);
    expect(windowMinutes({ startHour: 1, endHour: 1 })).toBe(24 * 60);
  });

  it("picks tonight's slot once it passed, else last night's (so missed nights are caught up once)", () => {
    const id = 'a-database';
    const at = 60 + slotMinute(id, UTC.window);
    const tonight = fromLocal('2030-01-05', at, 'UTC');
    expect(latestSlot(new Date(tonight.getTime() - 1000), id, UTC).night).toBe('2030-01-04');
    expect(latestSlot(tonight, id, UTC)).toEqual({ night: '2030-01-05', at: tonight });
    // Days later: only the latest night.
    expect(latestSlot(new Date('2030-01-09T23:00:00Z'), id, UTC).night).toBe('2030-01-09');
  });

  it('works in server-local hours of a time zone', () => {
    const paris = { window: { startHour: 1, endHour: 5 }, timeZone: 'Europe/Paris' };
    const slot = latestSlot(new Date('2030-07-10T12:00:00Z'), 'x', paris);
    expect(slot.night).toBe('2030-07-10');
    // 01:00–05:00 in Paris in summer is 23:00–03:00 UTC.
    const hourUtc = slot.at.getUTCHours();
    expect([23, 0, 1, 2]).toContain(hourUtc);
    expect(localDate(new Date('2030-07-09T23:30:00Z'), 'Europe/Paris')).toBe('2030-07-10');
  });

  it('expires each kind after its retention', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const r = { retentionDays: { scheduled: 7, manual: 30, pre_restore: 7 } };
    expect(expiryOf('scheduled', at, r).toISOString()).toBe('2030-01-08T00:00:00.000Z');
    expect(expiryOf('manual', at, r).toISOString()).toBe('2030-01-31T00:00:00.000Z');
  });
});
