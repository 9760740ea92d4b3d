import type { ContainerExitEvent, ContainerSnapshot, Logger, ManagedContainer } from '@slipway/core';
import { ContainerEventHub } from './container-events';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, child: () => logger };
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error('timed out');
};

/** An engine whose event stream can be broken (a restart) and that can refuse connections for a while. */
function fakeEngine() {
  const engine = {
    up: true,
    containers: [{ id: 'c1', name: 'a', image: 'i', state: 'running', labels: {}, createdAtMs: 1 }] as ManagedContainer[],
    emit: null as ((e: ContainerExitEvent) => void) | null,
    close: null as ((err: Error | null) => void) | null,
    watches: 0,
    async watchExits(onEvent: (e: ContainerExitEvent) => void, onClosed: (err: Error | null) => void) {
      if (!engine.up) throw new Error('connect ENOENT /var/run/docker.sock');
      engine.watches++;
      engine.emit = onEvent;
      engine.close = onClosed;
      return () => undefined;
    },
    async listManaged() {
      if (!engine.up) throw new Error('connect ENOENT /var/run/docker.sock');
      return engine.containers;
    },
  };
  return engine;
}

describe('ContainerEventHub', () => {
  it('gives a new listener a snapshot, then the exits', async () => {
    const engine = fakeEngine();
    const hub = new ContainerEventHub(engine, logger);
    const snapshots: ContainerSnapshot[] = [];
    const exits: ContainerExitEvent[] = [];
    hub.start();
    await until(() => hub.connected);
    hub.subscribe({ onExit: (e) => exits.push(e), onSnapshot: (s) => snapshots.push(s) });
    await until(() => snapshots.length === 1);
    expect(snapshots[0]!.containers.map((c) => c.id)).toEqual(['c1']);
    engine.emit!({ containerId: 'c1', action: 'die', exitCode: 137, labels: {}, atMs: 2 });
    expect(exits.map((e) => e.exitCode)).toEqual([137]);
    hub.stop();
  });

  it('subscribes again after the engine restarts and sends every listener a fresh snapshot', async () => {
    const engine = fakeEngine();
    const hub = new ContainerEventHub(engine, logger);
    const snapshots: ContainerSnapshot[] = [];
    hub.subscribe({ onExit: () => undefined, onSnapshot: (s) => snapshots.push(s) });
    await until(() => snapshots.length === 1);
    // The engine goes away: its stream ends and it refuses connections for a while.
    engine.up = false;
    engine.close!(null);
    expect(hub.connected).toBe(false);
    expect(hub.engineReachable).toBe(false);
    await new Promise((r) => setTimeout(r, 600));
    engine.containers = [{ ...engine.containers[0]!, state: 'exited' }];
    engine.up = true;
    await until(() => snapshots.length === 2);
    expect(hub.subscriptions).toBe(2);
    expect(hub.engineReachable).toBe(true);
    expect(snapshots[1]!.containers[0]!.state).toBe('exited');
    hub.stop();
  });
});
