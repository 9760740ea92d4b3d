import pino from 'pino';
import type { ContainerEventListener } from '../containers/container-events';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { ProjectStorage } from '../storage/storage';
import { DEFAULT_METRICS, MetricsCollector, READ_CONCURRENCY, RELIST_MS, workloadOf } from './collector';
import type { MinuteStore } from './minute-store';

/** A collector over an engine double, with no folders and a store that keeps nothing. */
function collectorOver(docker: object, extra: Partial<ConstructorParameters<typeof MetricsCollector>[0]> = {}): MetricsCollector {
  const store = { loadState: async () => null, saveState: async () => undefined, append: async () => undefined };
  return new MetricsCollector({
    docker: docker as unknown as DockerRuntime,
    storage: { usageAll: async () => new Map() } as unknown as ProjectStorage,
    volumesDir: '/nonexistent',
    store: store as unknown as MinuteStore,
    logger: pino({ level: 'silent' }),
    settings: DEFAULT_METRICS,
    ...extra,
  });
}

describe('workloadOf (which workload a managed container measures for)', () => {
  it('measures apps and any managed database by their labels, never the layer helpers or unlabelled containers', () => {
    expect(workloadOf({ 'slipway.workspace': 'w1', 'slipway.app': 'a1', 'slipway.deployment': 'd1' })).toEqual({ kind: 'app', targetId: 'a1', workspaceId: 'w1' });
    // Managed databases (postgres, mysql, redis, mongodb alike): the label is enough, no code per engine.
    expect(workloadOf({ 'slipway.workspace': 'w1', 'slipway.database': 'db1' })).toEqual({ kind: 'database', targetId: 'db1', workspaceId: 'w1' });
    expect(workloadOf({ 'slipway.workspace': 'seed', 'slipway.app': 'a1' })).toBeNull();
    expect(workloadOf({ 'slipway.workspace': 'w1' })).toBeNull();
    expect(workloadOf({ 'slipway.app': 'a1' })).toBeNull();
  });
});

describe('MetricsCollector.cycle at many containers', () => {
  it('reads at most READ_CONCURRENCY containers at a time, and every one of them (issue 34: RSS per app)', async () => {
    const containers = Array.from({ length: 60 }, (_, i) => ({
      id: `c${i}`,
      name: `app-${i}`,
      image: 'tiny',
      state: 'running',
      labels: { 'slipway.workspace': 'w1', 'slipway.app': `a${i}` },
      createdAtMs: 0,
    }));
    let running = 0;
    let most = 0;
    const inspected: string[] = [];
    const docker = {
      listManaged: async () => containers,
      // A container new to the collector is asked of the engine once: here, one that stopped meanwhile.
      inspectContainer: async (id: string) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
        inspected.push(id);
        return { State: { Running: false, Pid: 0 } };
      },
    };
    const collector = collectorOver(docker);
    await collector.cycle();
    expect(inspected.sort()).toEqual(containers.map((c) => c.id).sort());
    expect(most).toBe(READ_CONCURRENCY);
  });
});

describe('MetricsCollector: which containers run, from the engine events', () => {
  const app = (i: number) => ({ id: `c${i}`, name: `app-${i}`, image: 'tiny', state: 'running', labels: { 'slipway.workspace': 'w1', 'slipway.app': `a${i}` }, createdAtMs: 0 });
  const event = (action: string, i: number) => ({ containerId: `c${i}`, action, exitCode: 0, labels: app(i).labels, atMs: 0 });

  it('lists the engine once, then follows starts, dies and removals; lists again every RELIST_MS, after the stream reopened, and never undoes an event that came during a listing', async () => {
    let listed = [app(0), app(1), app(2)];
    let listings = 0;
    let listing: Promise<void> = Promise.resolve();
    const inspected: string[] = [];
    const docker = {
      listManaged: async () => {
        listings++;
        await listing;
        return listed;
      },
      // Each running container is new to the collector (no cgroup known): asked of the engine, which is busy, every cycle.
      inspectContainer: async (id: string) => {
        inspected.push(id);
        throw Object.assign(new Error('engine busy'), { statusCode: 500 });
      },
    };
    let listener: ContainerEventListener | null = null;
    let now = 1_000_000;
    const collector = collectorOver(docker, {
      settings: { ...DEFAULT_METRICS, intervalMs: 3_600_000 },
      events: { subscribe: (l) => ((listener = l), () => (listener = null)) },
      now: () => now,
    });
    const measured = async () => {
      inspected.length = 0;
      await collector.sampleNow();
      return [...inspected].sort();
    };
    await collector.start();
    // The first cycle runs at once after start (the next one in an hour).
    await new Promise((r) => setTimeout(r, 20));
    try {
      expect(await measured()).toEqual(['c0', 'c1', 'c2']);
      expect(listings).toBe(1);
      listener!.onExit(event('start', 3));
      listener!.onExit(event('die', 0));
      listener!.onExit(event('destroy', 2));
      listener!.onExit(event('oom', 1));
      expect(await measured()).toEqual(['c1', 'c3']);
      expect(listings).toBe(1);

      // The safety net: a listing every RELIST_MS, whatever the events said.
      listed = [app(1), app(4)];
      now += RELIST_MS;
      expect(await measured()).toEqual(['c1', 'c4']);
      expect(listings).toBe(2);
      // The engine's stream opened again (an engine restart): listed at the next cycle.
      listed = [app(1), app(5)];
      listener!.onSnapshot({ containers: [], atMs: now });
      expect(await measured()).toEqual(['c1', 'c5']);
      expect(listings).toBe(3);

      // An event while the engine is being listed is applied over the listing, which may be older than it.
      let answer!: () => void;
      listing = new Promise((r) => (answer = r));
      listed = [app(1), app(5)];
      now += RELIST_MS;
      const cycle = measured();
      while (listings < 4) await new Promise((r) => setImmediate(r));
      listener!.onExit(event('die', 5));
      listener!.onExit(event('start', 6));
      answer();
      expect(await cycle).toEqual(['c1', 'c6']);
    } finally {
      await collector.stop();
    }
    expect(listener).toBeNull();
  });
});
