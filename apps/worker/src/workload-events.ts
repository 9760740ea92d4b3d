import { CRASH_QUIET_MS, LABELS, type ContainerExitEvent, type CrashWatchService, type Logger, type ReconcileService, type ResourceKind } from '@slipway/core';

/**
 * After a comparison on an event, the resource is compared again this much later (each once): twice soon (the engine
 * settling), and once a crashed app's quiet period has passed (its container back and running since: it shows
 * `running` then, not at the next 30-s pass).
 */
const RECHECKS_MS = [300, 1_000, CRASH_QUIET_MS + 1_000];

export interface WorkloadEventsOptions {
  /** A resource whose lock is held when its event comes is compared again this often… */
  retryMs?: number;
  /** …for this long (its holder converges it when it ends; past that, the next pass does). */
  retryForMs?: number;
}

/**
 * Container events of the agents turned into status and repairs, at once rather than at the next 30-s pass: an exit,
 * an OOM kill or a removal (when the platform did not cause it, an app's crash is recorded with the agent's sentence
 * and the last lines) makes the resource compared with what its server holds under its lock — the status says what the
 * server shows first, then the container is brought back. A resource busy with a job is tried again shortly (the job
 * may have looked before this event). Events of one resource that come together (die, then destroy) make one comparison
 * and, if more came meanwhile, one more.
 */
export class WorkloadEvents {
  private readonly pending = new Map<string, { again: boolean; wake: () => void }>();
  private stopped = false;

  constructor(
    private readonly deps: { crashes: CrashWatchService; reconcile: ReconcileService; logger: Logger } & WorkloadEventsOptions,
  ) {}

  handle(node: { id: string; name: string; grpcAddress: string }, e: ContainerExitEvent): void {
    if (this.stopped) return;
    // The platform's own starts say nothing new; an agent of issue 27 marks the die that follows an OOM kill
    // (oomKilled), so its separate oom event adds nothing either.
    if (e.action === 'start' && e.cause === 'platform') return;
    if (e.action === 'oom' && e.cause) return;
    const why = e.reason || `container ${e.containerId.slice(0, 12)} ${e.action === 'destroy' ? 'was removed' : e.action === 'start' ? 'started' : `exited (${e.exitCode})`}`;
    const appId = e.labels[LABELS.app];
    const databaseId = e.labels[LABELS.database];
    if (appId) {
      // A crash is recorded only for what the platform did not do; the comparison runs for every exit or removal
      // (cheap, and safe: it does what the desired state asks, and a job holding the resource is left to finish).
      const crash = (e.action === 'die' || e.action === 'oom') && e.cause !== 'platform';
      const recorded = !crash ? Promise.resolve() : this.deps.crashes.containerExited(node, e).catch((err: Error) => this.deps.logger.warn({ appId, err: err.message }, 'could not record a container exit'));
      void recorded.then(() => this.converge(node, 'app', appId, why));
    }
    if (databaseId) void this.converge(node, 'database', databaseId, why);
  }

  stop(): void {
    this.stopped = true;
  }

  private async converge(node: { id: string; name: string; grpcAddress: string }, kind: ResourceKind, id: string, why: string): Promise<void> {
    const key = `${kind}:${id}`;
    const running = this.pending.get(key);
    if (running) {
      // A comparison is under way or waiting for its next look: it looks again now.
      running.again = true;
      running.wake();
      return;
    }
    const entry = { again: false, wake: () => {} };
    this.pending.set(key, entry);
    /** Waits `ms`, or less when an event of the same resource comes meanwhile. */
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        timer.unref();
        entry.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const until = Date.now() + (this.deps.retryForMs ?? 30_000);
    let rechecks = [...RECHECKS_MS];
    try {
      for (;;) {
        if (this.stopped) return;
        // A new event of the resource gets looks of its own (the engine may still list a container it just killed).
        if (entry.again) rechecks = [...RECHECKS_MS];
        entry.again = false;
        let done: unknown[] | null;
        try {
          done = await this.deps.reconcile.convergeNow(node, kind, id, why);
        } catch (err) {
          this.deps.logger.warn({ resource: kind, id, err: (err as Error).message }, 'could not compare the resource with its server after a container event');
          done = null;
        }
        this.deps.logger.debug({ resource: kind, id, why, outcome: done === null ? 'busy' : done.length ? 'repaired' : 'nothing to do' }, 'compared after a container event');
        if (done === null) {
          if (Date.now() > until) return;
          await pause(this.deps.retryMs ?? 250);
          continue;
        }
        if (entry.again) continue;
        // The engine may list a container as running for a moment after its die event (its restart policy deciding):
        // what showed nothing to do is compared again a little later.
        const next = rechecks.shift();
        if (next === undefined) return;
        await pause(next);
      }
    } finally {
      this.pending.delete(key);
    }
  }
}
