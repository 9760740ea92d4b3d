import pino from 'pino';
import type { DockerRuntime } from '../containers/docker.runtime';
import type { ProjectStorage } from '../storage/storage';
import { DEFAULT_METRICS, MetricsCollector, READ_CONCURRENCY, workloadOf } from './collector';
import type { MinuteStore } from './minute-store';

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
    const store = { loadState: async () => null, saveState: async () => undefined, append: async () => undefined };
    const collector = new MetricsCollector({
      docker: docker as unknown as DockerRuntime,
      storage: { usageAll: async () => new Map() } as unknown as ProjectStorage,
      volumesDir: '/nonexistent',
      store: store as unknown as MinuteStore,
      logger: pino({ level: 'silent' }),
      settings: DEFAULT_METRICS,
    });
    await collector.cycle();
    expect(inspected.sort()).toEqual(containers.map((c) => c.id).sort());
    expect(most).toBe(READ_CONCURRENCY);
  });
});
