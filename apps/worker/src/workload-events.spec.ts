import { CRASH_QUIET_MS, type ContainerExitEvent, type CrashWatchService, type Logger, type ReconcileService } from '@slipway/core';
import { WorkloadEvents } from './workload-events';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const node = { id: 'n-1', name: 'n1', grpcAddress: '' };
const died: ContainerExitEvent = { containerId: 'c-1', action: 'die', exitCode: 137, labels: { 'slipway.app': 'a-1', 'slipway.deployment': 'd-1' }, atMs: 0, cause: 'external', signal: 9 };

describe('container events turned into comparisons (WorkloadEvents)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup(busyFor = 0) {
    const compared: number[] = [];
    const start = Date.now();
    const reconcile = {
      convergeNow: async () => {
        compared.push(Date.now() - start);
        return compared.length <= busyFor ? null : [];
      },
    } as Partial<ReconcileService> as ReconcileService;
    const crashes = { containerExited: async () => undefined } as Partial<CrashWatchService> as CrashWatchService;
    return { events: new WorkloadEvents({ crashes, reconcile, logger: quiet, retryMs: 250 }), compared };
  }

  it('compares at once, again as the engine settles, and once more after a crashed app’s quiet period (its status then says running)', async () => {
    const t = setup();
    t.events.handle(node, died);
    await jest.advanceTimersByTimeAsync(CRASH_QUIET_MS + 5_000);
    expect(t.compared).toEqual([0, 300, 1_300, 1_300 + CRASH_QUIET_MS + 1_000]);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(t.compared).toHaveLength(4);
  });

  it('an event while a comparison waits for its next look is compared at once (docker stop, then kill, then rm -f)', async () => {
    const t = setup();
    t.events.handle(node, died);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(t.compared).toEqual([0, 300, 1_300]);
    t.events.handle(node, { ...died, action: 'destroy' });
    await jest.advanceTimersByTimeAsync(0);
    expect(t.compared).toEqual([0, 300, 1_300, 5_000]);
    // …and gets the soon looks of its own (the engine may list the container it just killed for a moment).
    await jest.advanceTimersByTimeAsync(1_300);
    expect(t.compared).toEqual([0, 300, 1_300, 5_000, 5_300, 6_300]);
  });

  it('a resource whose lock a job holds is tried again until it is free; events meanwhile make no second loop', async () => {
    const t = setup(3);
    t.events.handle(node, died);
    t.events.handle(node, { ...died, action: 'destroy' });
    await jest.advanceTimersByTimeAsync(800);
    expect(t.compared).toEqual([0, 250, 500, 750]);
    t.events.stop();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(t.compared).toHaveLength(4);
  });
});
