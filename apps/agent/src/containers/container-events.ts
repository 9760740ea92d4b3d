import type { ContainerExitEvent, ContainerSnapshot, Logger } from '@slipway/core';
import type { DockerRuntime } from './docker.runtime';
import type { ContainerIntents } from './intents';

/** The actions a WatchContainerEvents stream sends to a control plane that did not ask for lifecycle events. */
export const EXIT_ACTIONS: ReadonlySet<string> = new Set(['die', 'oom']);
/** What the agent asks the engine for: exits, OOM kills, removals, starts, and kills (read for their signal only). */
export const ENGINE_ACTIONS = ['die', 'oom', 'destroy', 'start', 'kill'];

/** One container event as the engine's stream writes it (a line of JSON). */
export interface EngineEvent {
  Action: string;
  Actor: { ID: string; Attributes: Record<string, string> };
  timeNano: number;
}

/**
 * Turns the engine's container events into the platform's: the labels kept, who caused each one (`platform` when
 * the agent was stopping, killing, removing or starting that container itself; `external` otherwise), and on a die
 * whether the OOM killer did it and which signal a kill request sent before it. `kill` events are only read for
 * that signal; the rest pass through. Remembers per container only until its next start or its removal.
 */
export class EngineEventTranslator {
  private readonly kills = new Map<string, { signal: number; oom: boolean }>();

  constructor(private readonly intents: Pick<ContainerIntents, 'caused'>) {}

  translate(e: EngineEvent): ContainerExitEvent | null {
    const id = e.Actor.ID;
    const { exitCode, signal, name, image: _image, ...attributes } = e.Actor.Attributes;
    const seen = this.kills.get(id) ?? { signal: 0, oom: false };
    if (e.Action === 'kill') {
      this.kills.set(id, { ...seen, signal: Number(signal) || 0 });
      return null;
    }
    const labels = Object.fromEntries(Object.entries(attributes).filter(([k]) => k.startsWith('slipway.')));
    const event: ContainerExitEvent = {
      containerId: id,
      action: e.Action,
      exitCode: e.Action === 'die' ? Number(exitCode ?? -1) : 0,
      labels,
      atMs: e.timeNano / 1e6,
      cause: this.intents.caused(id, name ?? '', e.Action) ? 'platform' : 'external',
    };
    if (e.Action === 'oom') this.kills.set(id, { ...seen, oom: true });
    if (e.Action === 'die') {
      event.oomKilled = seen.oom;
      event.signal = seen.signal;
      this.kills.delete(id);
    }
    if (e.Action === 'start' || e.Action === 'destroy') this.kills.delete(id);
    event.reason = reasonOf(event);
    return event;
  }
}

/** The event as a sentence for a status or a log. */
export function reasonOf(e: ContainerExitEvent): string {
  const outside = e.cause === 'external';
  switch (e.action) {
    case 'oom':
      return 'The container ran out of memory: the kernel killed its process';
    case 'destroy':
      return outside ? "The container was removed behind the platform's back (docker rm)" : 'The container was removed by the platform';
    case 'start':
      return outside ? 'The container was started again (the engine’s restart policy or docker start)' : 'The container was started by the platform';
    case 'die':
      if (!outside) return `The container was stopped by the platform (exit code ${e.exitCode})`;
      if (e.oomKilled) return 'The container ran out of memory and was killed';
      if (e.signal === 15) return `The container was stopped behind the platform's back (docker stop; exit code ${e.exitCode})`;
      if (e.signal === 9) return `The container was killed behind the platform's back (docker kill, docker rm -f, or a docker stop whose grace ran out; exit code ${e.exitCode})`;
      if (e.signal) return `The container was sent signal ${e.signal} behind the platform's back and exited with code ${e.exitCode}`;
      return `The container exited on its own with code ${e.exitCode}`;
    default:
      return `Container event ${e.action}`;
  }
}

export interface ContainerEventListener {
  onExit(e: ContainerExitEvent): void;
  onSnapshot(s: ContainerSnapshot): void;
}

/**
 * The agent's one subscription to the engine's container events, shared by every WatchContainerEvents stream
 * (each sends what its control plane asked for: exits only, or also removals and starts).
 * When the engine's stream ends (the Docker engine restarted or stopped), it subscribes again with backoff
 * (250 ms doubling to 2 s) for as long as it takes, and once subscribed sends every listener a snapshot of all
 * managed containers: exits that happened while nobody listened, and containers the restart policy brought back,
 * are in it. A listener that joins gets a snapshot of its own first. The streams to the control plane stay open
 * through an engine restart.
 */
export class ContainerEventHub {
  private readonly listeners = new Set<ContainerEventListener>();
  private stopWatch: (() => void) | null = null;
  private retry: NodeJS.Timeout | null = null;
  private delayMs = MIN_DELAY_MS;
  private running = false;
  private lost_ = false;
  /** Times the engine's stream was opened (1 after the first subscription; more after engine restarts). */
  subscriptions = 0;

  constructor(
    private readonly docker: Pick<DockerRuntime, 'watchEvents' | 'listManaged'>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.stopWatch?.();
    this.stopWatch = null;
    this.listeners.clear();
  }

  get connected(): boolean {
    return this.stopWatch !== null;
  }

  /** False from the moment the engine's stream broke (or could not be opened) until it is open again. */
  get engineReachable(): boolean {
    return !this.lost_;
  }

  /** Adds a listener; it gets a snapshot at once when the engine answers (else as soon as it does again). */
  subscribe(listener: ContainerEventListener): () => void {
    this.listeners.add(listener);
    this.start();
    if (this.connected) void this.snapshot([listener]);
    return () => this.listeners.delete(listener);
  }

  private async connect(): Promise<void> {
    this.retry = null;
    if (!this.running) return;
    try {
      // Events first, then the list: an exit between the two is in one or the other, never in neither.
      const stop = await this.docker.watchEvents(
        (e) => {
          for (const l of this.listeners) l.onExit(e);
        },
        (err) => this.lost(err),
      );
      if (!this.running) return stop();
      this.stopWatch = stop;
      this.lost_ = false;
      this.subscriptions++;
      if (this.subscriptions > 1) this.logger.info({ subscriptions: this.subscriptions }, 'subscribed to the Docker engine events again');
      this.delayMs = MIN_DELAY_MS;
      await this.snapshot([...this.listeners]);
    } catch (e) {
      this.lost_ = true;
      this.schedule((e as Error).message);
    }
  }

  private lost(err: Error | null): void {
    this.stopWatch = null;
    this.lost_ = true;
    this.logger.warn({ err: err?.message ?? 'stream ended' }, 'the Docker engine event stream ended (engine restarting?): subscribing again');
    this.schedule(err?.message ?? 'stream ended');
  }

  private schedule(reason: string): void {
    if (!this.running || this.retry) return;
    this.logger.debug({ reason, inMs: this.delayMs }, 'Docker engine events: next try');
    this.retry = setTimeout(() => void this.connect(), this.delayMs);
    this.retry.unref();
    this.delayMs = Math.min(MAX_DELAY_MS, this.delayMs * 2);
  }

  private async snapshot(to: ContainerEventListener[]): Promise<void> {
    if (to.length === 0) return;
    try {
      const snapshot: ContainerSnapshot = { containers: await this.docker.listManaged(), atMs: Date.now() };
      for (const l of to) if (this.listeners.has(l)) l.onSnapshot(snapshot);
    } catch (e) {
      // The engine went away again between the subscription and the list: the next subscription sends one.
      this.logger.warn({ err: (e as Error).message }, 'could not list managed containers for a snapshot');
    }
  }
}

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;
