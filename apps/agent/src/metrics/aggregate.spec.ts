import { closeMinute, deltaOf, foldCycle, type Baseline, type OpenMinute } from './aggregate';
import type { ContainerCounters } from './cgroup';

const counters = (c: Partial<ContainerCounters>): ContainerCounters => ({ cpuNs: 0, memoryBytes: 0, rxBytes: 0, txBytes: 0, readBytes: 0, writeBytes: 0, ...c });
const base = (c: Partial<ContainerCounters>, atMs = 0, identity = 'net:[1]'): Baseline => ({ identity, atMs, counters: counters(c) });
const app = { kind: 'app' as const, targetId: 'a1', workspaceId: 'w1' };

describe('counter deltas', () => {
  it('counts what was used since the last reading', () => {
    expect(deltaOf(base({ cpuNs: 1e9, rxBytes: 100 }, 0), 'net:[1]', 10_000, counters({ cpuNs: 6e9, rxBytes: 250 }))).toEqual({
      cpuNs: 5e9,
      rxBytes: 150,
      txBytes: 0,
      readBytes: 0,
      writeBytes: 0,
      ms: 10_000,
    });
  });

  it('takes a first reading as the baseline only (no spike of everything since the container started)', () => {
    expect(deltaOf(undefined, 'net:[1]', 10_000, counters({ cpuNs: 9e12 }))).toBeNull();
  });

  it('takes a counter that went backwards (restart) as a new baseline: no negative value', () => {
    expect(deltaOf(base({ cpuNs: 5e9, rxBytes: 1000 }), 'net:[1]', 10_000, counters({ cpuNs: 1e8, rxBytes: 2000 }))).toBeNull();
    expect(deltaOf(base({ cpuNs: 5e9, rxBytes: 1000 }), 'net:[1]', 10_000, counters({ cpuNs: 6e9, rxBytes: 10 }))).toBeNull();
  });

  it('takes a new network namespace (the container was restarted) as a reset even when counters grew', () => {
    expect(deltaOf(base({ rxBytes: 10 }), 'net:[1]', 10_000, counters({ rxBytes: 10_000_000 }))).not.toBeNull();
    expect(deltaOf(base({ rxBytes: 10 }), 'net:[2]', 10_000, counters({ rxBytes: 10_000_000 }))).toBeNull();
  });

  it('takes a baseline from long ago (the agent was stopped for hours) as a reset: no spike in one minute', () => {
    expect(deltaOf(base({ rxBytes: 10 }, 0), 'net:[1]', 3 * 3_600_000, counters({ rxBytes: 10_000_000 }), 30_000)).toBeNull();
    expect(deltaOf(base({ rxBytes: 10 }, 0), 'net:[1]', 20_000, counters({ rxBytes: 110 }), 30_000)?.rxBytes).toBe(100);
  });

  it('after a reset the next interval counts normally again', () => {
    const fresh = base({ cpuNs: 1e8 }, 10_000);
    expect(deltaOf(fresh, 'net:[1]', 20_000, counters({ cpuNs: 3e8 }))?.cpuNs).toBe(2e8);
  });
});

/** The folder size reader of the test: 20 MB for app a1, -1 (unknown) for anything else. */
const folderOfA1 = (id: string) => (id === 'a1' ? 20 : -1);

describe('minute aggregates', () => {
  it('averages CPU over the sampled time, keeps the highest memory and sums bytes, containers of one app added up', () => {
    const open: OpenMinute = { minute: 100, totals: {} };
    const d = (cpuNs: number, rx: number) => ({ cpuNs, rxBytes: rx, txBytes: 1, readBytes: 0, writeBytes: 2, ms: 10_000 });
    // Half a core for 10 s, then a second container (rollout) joins: 0.5 + 0.25 cores.
    foldCycle(open, [{ workload: app, memoryBytes: 100 * 1024 * 1024, deltas: d(5e9, 1000) }]);
    foldCycle(open, [
      { workload: app, memoryBytes: 60 * 1024 * 1024, deltas: d(5e9, 500) },
      { workload: app, memoryBytes: 50 * 1024 * 1024, deltas: d(2.5e9, 500) },
    ]);
    // A baseline-only reading adds memory but no CPU time.
    foldCycle(open, [{ workload: { kind: 'database', targetId: 'd1', workspaceId: 'w1' }, memoryBytes: 1024 * 1024, deltas: null }]);
    const points = closeMinute(open, folderOfA1);
    expect(points).toEqual([
      { ...app, minute: 100, cpuMillis: 625, memoryMb: 110, networkRxBytes: 2000, networkTxBytes: 3, diskReadBytes: 0, diskWriteBytes: 6, folderMb: 20, samples: 2 },
      { kind: 'database', targetId: 'd1', workspaceId: 'w1', minute: 100, cpuMillis: 0, memoryMb: 1, networkRxBytes: 0, networkTxBytes: 0, diskReadBytes: 0, diskWriteBytes: 0, folderMb: -1, samples: 1 },
    ]);
  });
});
