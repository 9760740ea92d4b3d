import { reserveMb } from './disk-guard';

describe('reserveMb', () => {
  it('keeps the smaller of the share and the amount', () => {
    expect(reserveMb(40_000, { percent: 10, mb: 5120 })).toBe(4000);
    expect(reserveMb(258_000, { percent: 10, mb: 5120 })).toBe(5120);
    expect(reserveMb(258_000, { percent: 0, mb: 5120 })).toBe(0);
    expect(reserveMb(1000, { percent: 90, mb: 10_000 })).toBe(900);
  });
});
