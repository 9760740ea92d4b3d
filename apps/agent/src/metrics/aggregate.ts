// Counters → per-interval deltas → one point per workload and minute (issue 15). Pure: the collector feeds it
// readings, the minute store persists what it returns.
import type { MetricMinutePoint } from '@slipway/core';
import type { ContainerCounters } from './cgroup';

/** The workload a container belongs to, from its labels: an app, or a managed database (any later kind alike). */
export interface Workload {
  kind: 'app' | 'database';
  targetId: string;
  workspaceId: string;
}

/** The last reading of a container, kept to compute the next delta. */
export interface Baseline {
  /** What must stay the same for counters to be comparable: the network namespace (a restart makes a new one). */
  identity: string;
  atMs: number;
  counters: ContainerCounters;
}

export interface Deltas {
  cpuNs: number;
  rxBytes: number;
  txBytes: number;
  readBytes: number;
  writeBytes: number;
  /** Wall time the deltas cover. */
  ms: number;
}

const CUMULATIVE = ['cpuNs', 'rxBytes', 'txBytes', 'readBytes', 'writeBytes'] as const;

/**
 * What a container used since its last reading. null when there is nothing to compare with: the first reading, a
 * new identity (the container restarted: new network namespace, cgroup made anew), any counter that went
 * backwards (a reset), or a baseline older than `maxGapMs`. A reset starts a new baseline and counts nothing for that interval: never a negative value,
 * never a spike of everything counted since the container started.
 */
export function deltaOf(prev: Baseline | undefined, identity: string, atMs: number, cur: ContainerCounters, maxGapMs = Infinity): Deltas | null {
  if (!prev || prev.identity !== identity || atMs <= prev.atMs) return null;
  // A baseline from long ago (the agent was stopped for a while): what was used meanwhile cannot be placed in its
  // minutes, and put in this one it would be a spike. It is a new baseline too.
  if (atMs - prev.atMs > maxGapMs) return null;
  if (CUMULATIVE.some((k) => cur[k] < prev.counters[k])) return null;
  return {
    cpuNs: cur.cpuNs - prev.counters.cpuNs,
    rxBytes: cur.rxBytes - prev.counters.rxBytes,
    txBytes: cur.txBytes - prev.counters.txBytes,
    readBytes: cur.readBytes - prev.counters.readBytes,
    writeBytes: cur.writeBytes - prev.counters.writeBytes,
    ms: atMs - prev.atMs,
  };
}

/** One workload's sums within the minute being collected. */
export interface MinuteTotals extends Workload {
  cpuNs: number;
  /** Wall time the CPU figures cover (the intervals' lengths). */
  cpuMs: number;
  memoryMaxBytes: number;
  rxBytes: number;
  txBytes: number;
  readBytes: number;
  writeBytes: number;
  samples: number;
}

/** The minute being collected: epoch minutes, and each workload's sums, by target id. */
export interface OpenMinute {
  minute: number;
  totals: Record<string, MinuteTotals>;
}

/**
 * A closed minute of one workload, as it is stored and shipped: the control plane's MetricMinutePoint, with the
 * folder as -1 when not known (proto3 has no null) and the number of samples folded into it.
 */
export type MinutePoint = Omit<MetricMinutePoint, 'folderMb'> & { folderMb: number; samples: number };

/** What one container contributed to one sampling cycle. */
export interface ContainerSample {
  workload: Workload;
  memoryBytes: number;
  deltas: Deltas | null;
}

export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);

/**
 * Folds one cycle's samples into the open minute. Containers of one workload (two during a rollout) add up: their
 * CPU and bytes are summed and their memory too, before the minute keeps the highest memory of its cycles. The
 * cycle's interval counts once per workload for the CPU average.
 */
export function foldCycle(open: OpenMinute, samples: ContainerSample[]): void {
  const cycle = new Map<string, { w: Workload; cpuNs: number; ms: number; memory: number; rx: number; tx: number; rd: number; wr: number }>();
  for (const s of samples) {
    const c = cycle.get(s.workload.targetId) ?? { w: s.workload, cpuNs: 0, ms: 0, memory: 0, rx: 0, tx: 0, rd: 0, wr: 0 };
    c.memory += s.memoryBytes;
    if (s.deltas) {
      c.cpuNs += s.deltas.cpuNs;
      c.ms = Math.max(c.ms, s.deltas.ms);
      c.rx += s.deltas.rxBytes;
      c.tx += s.deltas.txBytes;
      c.rd += s.deltas.readBytes;
      c.wr += s.deltas.writeBytes;
    }
    cycle.set(s.workload.targetId, c);
  }
  for (const [id, c] of cycle) {
    const t = (open.totals[id] ??= { ...c.w, cpuNs: 0, cpuMs: 0, memoryMaxBytes: 0, rxBytes: 0, txBytes: 0, readBytes: 0, writeBytes: 0, samples: 0 });
    t.cpuNs += c.cpuNs;
    t.cpuMs += c.ms;
    t.memoryMaxBytes = Math.max(t.memoryMaxBytes, c.memory);
    t.rxBytes += c.rx;
    t.txBytes += c.tx;
    t.readBytes += c.rd;
    t.writeBytes += c.wr;
    t.samples += 1;
  }
}

const MB = 1024 * 1024;

/** The points of a minute that is over. CPU: nanoseconds per millisecond of wall time / 1000 = millicores. */
export function closeMinute(open: OpenMinute, folderMb: (targetId: string) => number): MinutePoint[] {
  return Object.values(open.totals).map((t) => ({
    kind: t.kind,
    targetId: t.targetId,
    workspaceId: t.workspaceId,
    minute: open.minute,
    cpuMillis: t.cpuMs > 0 ? Math.round(t.cpuNs / t.cpuMs / 1000) : 0,
    memoryMb: Math.round(t.memoryMaxBytes / MB),
    networkRxBytes: t.rxBytes,
    networkTxBytes: t.txBytes,
    diskReadBytes: t.readBytes,
    diskWriteBytes: t.writeBytes,
    folderMb: t.kind === 'app' ? folderMb(t.targetId) : -1,
    samples: t.samples,
  }));
}
