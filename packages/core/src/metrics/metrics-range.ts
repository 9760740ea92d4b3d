// The ranges of GET …/metrics (spec parts 4.2 and 8): each range's step, the steps aligned to the step, and the
// series with null where no minute row exists. Pure.
import type { MetricSeriesName, Metrics, MetricsRange } from '@slipway/contracts';
import type { MetricBucket } from './metrics.ports';

export const METRIC_RANGES: Record<MetricsRange, { seconds: number; stepSeconds: number }> = {
  '1h': { seconds: 3_600, stepSeconds: 60 },
  '24h': { seconds: 86_400, stepSeconds: 300 },
  '7d': { seconds: 604_800, stepSeconds: 1_800 },
  '30d': { seconds: 2_592_000, stepSeconds: 7_200 },
};

export const METRIC_SERIES: readonly MetricSeriesName[] = ['cpuMillis', 'memoryMb', 'networkRxBytes', 'networkTxBytes', 'diskReadBytes', 'diskWriteBytes', 'folderMb'];

/**
 * The steps of a range ending now: the last step is the one `now` falls in (aligned to the step on the epoch, so
 * every caller sees the same boundaries), the first is `points - 1` steps before. `from` is the first step's start,
 * `to` the end of the last one (exclusive).
 */
export function rangeWindow(range: MetricsRange, now: Date): { from: Date; to: Date; stepSeconds: number; points: number } {
  const { seconds, stepSeconds } = METRIC_RANGES[range];
  const stepMs = stepSeconds * 1000;
  const points = seconds / stepSeconds;
  const lastStart = Math.floor(now.getTime() / stepMs) * stepMs;
  return { from: new Date(lastStart - (points - 1) * stepMs), to: new Date(lastStart + stepMs), stepSeconds, points };
}

/** Every step of the window, a value where a bucket exists and null elsewhere. */
export function fillSeries(range: MetricsRange, window: { from: Date; to: Date; stepSeconds: number; points: number }, buckets: MetricBucket[]): Metrics {
  const stepMs = window.stepSeconds * 1000;
  const byStep = new Map<number, MetricBucket>();
  for (const b of buckets) byStep.set(Math.floor(b.at.getTime() / stepMs) * stepMs, b);
  const series = Object.fromEntries(METRIC_SERIES.map((name) => [name, [] as { at: string; value: number | null }[]])) as Metrics['series'];
  for (let i = 0; i < window.points; i++) {
    const t = window.from.getTime() + i * stepMs;
    const at = new Date(t).toISOString();
    const b = byStep.get(t);
    for (const name of METRIC_SERIES) series[name].push({ at, value: b ? b[name] : null });
  }
  return { range, stepSeconds: window.stepSeconds as Metrics['stepSeconds'], from: window.from.toISOString(), to: window.to.toISOString(), series };
}
