import { fillSeries, rangeWindow } from './metrics-range';

describe('metric ranges: steps aligned to the step, null where no sample exists', () => {
  const now = new Date('2026-11-24T12:34:56.789Z');

  it.each([
    ['1h', 60, 60],
    ['24h', 300, 288],
    ['7d', 1800, 336],
    ['30d', 7200, 360],
  ] as const)('%s has steps of %i s and %i points, the last being the one now falls in', (range, step, points) => {
    const w = rangeWindow(range, now);
    expect(w.stepSeconds).toBe(step);
    expect(w.points).toBe(points);
    expect(w.from.getTime() % (step * 1000)).toBe(0);
    expect(w.to.getTime() % (step * 1000)).toBe(0);
    expect(w.to.getTime()).toBeGreaterThan(now.getTime());
    expect(w.to.getTime() - step * 1000).toBeLessThanOrEqual(now.getTime());
    expect((w.to.getTime() - w.from.getTime()) / 1000).toBe(step * points);
  });

  it('places each bucket at its step and fills the others with null, for every series', () => {
    const w = rangeWindow('1h', now);
    const at = new Date(w.from.getTime() + 5 * 60_000);
    const m = fillSeries('1h', w, [
      { at, cpuMillis: 250, memoryMb: 100, networkRxBytes: 10, networkTxBytes: 20, diskReadBytes: 0, diskWriteBytes: 5, folderMb: null },
    ]);
    expect(m).toMatchObject({ range: '1h', stepSeconds: 60, from: '2026-11-24T11:35:00.000Z', to: '2026-11-24T12:35:00.000Z' });
    expect(m.series.cpuMillis).toHaveLength(60);
    expect(m.series.cpuMillis[0]).toEqual({ at: '2026-11-24T11:35:00.000Z', value: null });
    expect(m.series.cpuMillis[5]).toEqual({ at: at.toISOString(), value: 250 });
    expect(m.series.memoryMb[5]!.value).toBe(100);
    expect(m.series.diskWriteBytes[5]!.value).toBe(5);
    expect(m.series.folderMb[5]!.value).toBeNull();
    expect(m.series.networkRxBytes.filter((p) => p.value !== null)).toHaveLength(1);
    expect(m.series.memoryMb[59]!.at).toBe('2026-11-24T12:34:00.000Z');
  });

  it('ignores buckets outside the window', () => {
    const w = rangeWindow('24h', now);
    const m = fillSeries('24h', w, [
      { at: new Date(w.from.getTime() - 300_000), cpuMillis: 1, memoryMb: 1, networkRxBytes: 1, networkTxBytes: 1, diskReadBytes: 1, diskWriteBytes: 1, folderMb: 1 },
    ]);
    expect(m.series.cpuMillis.every((p) => p.value === null)).toBe(true);
  });
});
