import type { ContainerExitEvent, ContainerSnapshot, Logger } from '@slipway/core';
import type { DockerRuntime } from './docker.runtime';

export interface ContainerEventListener {
  onExit(e: ContainerExitEvent): void;
  onSnapshot(s: ContainerSnapshot): void;
}

/**
 * The agent's one subscription to the engine's container events, shared by every WatchContainerEvents stream.
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
    private readonly docker: Pick<DockerRuntime, 'watchExits' | 'listManaged'>,
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
      const stop = await this.docker.watchExits(
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
