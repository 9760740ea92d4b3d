import type { ContainerExitEvent, ContainerSnapshot, Logger, ManagedContainer } from '@slipway/core';
import { ContainerEventHub, EngineEventTranslator } from './container-events';
import { ContainerIntents } from './intents';

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
    async watchEvents(onEvent: (e: ContainerExitEvent) => void, onClosed: (err: Error | null) => void) {
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

describe('EngineEventTranslator', () => {
  const labels = { 'slipway.app': 'a1', 'slipway.workspace': 'w1', other: 'dropped' };
  const ev = (Action: string, attrs: Record<string, string> = {}, id = 'c'.repeat(64)) => ({ Action, Actor: { ID: id, Attributes: { name: 'web', image: 'img', ...labels, ...attrs } }, timeNano: 5e9 });

  it('tells a docker stop behind the platform’s back from the agent’s own stop', async () => {
    const intents = new ContainerIntents();
    const t = new EngineEventTranslator(intents);
    expect(t.translate(ev('kill', { signal: '15' }))).toBeNull();
    expect(t.translate(ev('die', { exitCode: '143' }))).toEqual({
      containerId: 'c'.repeat(64),
      action: 'die',
      exitCode: 143,
      labels: { 'slipway.app': 'a1', 'slipway.workspace': 'w1' },
      atMs: 5000,
      cause: 'external',
      oomKilled: false,
      signal: 15,
      reason: "The container was stopped behind the platform's back (docker stop; exit code 143)",
    });
    // The same exit while the agent stops the container (by its short id) is the platform's.
    await intents.around('c'.repeat(12), 'remove', async () => {
      t.translate(ev('kill', { signal: '15' }));
      expect(t.translate(ev('die', { exitCode: '143' }))).toMatchObject({ cause: 'platform', signal: 15 });
    });
    // …and for a few seconds after the call returned (the engine's stream can lag behind it).
    expect(t.translate(ev('destroy'))).toMatchObject({ action: 'destroy', exitCode: 0, cause: 'platform' });
  });

  it('says an OOM kill and an exit on its own apart, and names containers by name too', async () => {
    const intents = new ContainerIntents();
    const t = new EngineEventTranslator(intents);
    expect(t.translate(ev('oom'))).toMatchObject({ action: 'oom', cause: 'external' });
    expect(t.translate(ev('die', { exitCode: '137' }))).toMatchObject({ action: 'die', exitCode: 137, oomKilled: true, signal: 0, reason: 'The container ran out of memory and was killed' });
    expect(t.translate(ev('start'))).toMatchObject({ action: 'start', cause: 'external' });
    expect(t.translate(ev('die', { exitCode: '3' }))).toMatchObject({ exitCode: 3, oomKilled: false, signal: 0, cause: 'external', reason: 'The container exited on its own with code 3' });
    await intents.around('web', 'start', async () => expect(t.translate(ev('start'))).toMatchObject({ cause: 'platform' }));
    // A docker kill right after the agent started it is someone else's: a start causes no exit.
    t.translate(ev('kill', { signal: '9' }));
    expect(t.translate(ev('die', { exitCode: '137' }))).toMatchObject({ cause: 'external', signal: 9 });
  });

  it('lets the platform mark expire once its call is long over', async () => {
    let now = 1_000;
    const intents = new ContainerIntents(() => now);
    await intents.around('web', 'stop', async () => undefined);
    expect(intents.caused('x'.repeat(64), 'web', 'die')).toBe(true);
    expect(intents.caused('x'.repeat(64), 'web', 'start')).toBe(false);
    now += 10_000;
    expect(intents.caused('x'.repeat(64), 'web', 'die')).toBe(false);
  });
});
