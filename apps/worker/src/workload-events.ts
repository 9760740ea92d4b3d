import { LABELS, type ContainerExitEvent, type CrashWatchService, type Logger, type ReconcileService, type ResourceKind } from '@slipway/core';

export interface WorkloadEventsOptions {
  /** A resource whose lock is held when its event comes is compared again this often… */
  retryMs?: number;
  /** …for this long (its holder converges it when it ends; past that, the next pass does). */
  retryForMs?: number;
}

/**
 * Container events of the agents turned into status and repairs, at once rather than at the next 30-s pass: an exit,
 * an OOM kill or a removal the platform did not cause (an app's container: its crash is recorded with the exit code
 * and last lines) makes the resource compared with what its server holds under its lock — the status says what the
 * server shows first, then the container is brought back. A resource busy with a job is tried again shortly (the job
 * may have looked before this event). Events of one resource that come together (die, then destroy) make one comparison
 * and, if more came meanwhile, one more.
 */
export class WorkloadEvents {
  private readonly pending = new Map<string, { again: boolean }>();
  private stopped = false;

  constructor(
    private readonly deps: { crashes: CrashWatchService; reconcile: ReconcileService; logger: Logger } & WorkloadEventsOptions,
  ) {}

  handle(node: { id: string; name: string; grpcAddress: string }, e: ContainerExitEvent): void {
    if (this.stopped) return;
    // The platform's own stops and removals: the job that made them writes what the agent reports.
    if (e.byPlatform) return;
    const why = e.reason || `container ${e.containerId.slice(0, 12)} ${e.action === 'destroy' ? 'was removed' : `exited (${e.action}, ${e.exitCode})`}`;
    const appId = e.labels[LABELS.app];
    const databaseId = e.labels[LABELS.database];
    if (appId) {
      const recorded = e.action === 'destroy' ? Promise.resolve() : this.deps.crashes.containerExited(node, e).catch((err: Error) => this.deps.logger.warn({ appId, err: err.message }, 'could not record a container exit'));
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
      running.again = true;
      return;
    }
    const entry = { again: false };
    this.pending.set(key, entry);
    const until = Date.now() + (this.deps.retryForMs ?? 30_000);
    try {
      for (;;) {
        if (this.stopped) return;
        entry.again = false;
        let done: unknown[] | null;
        try {
          done = await this.deps.reconcile.convergeNow(node, kind, id, why);
        } catch (err) {
          this.deps.logger.warn({ resource: kind, id, err: (err as Error).message }, 'could not compare the resource with its server after a container event');
          done = null;
        }
        if (done !== null && !entry.again) return;
        if (Date.now() > until) return;
        if (done === null) await new Promise((r) => setTimeout(r, this.deps.retryMs ?? 250).unref());
      }
    } finally {
      this.pending.delete(key);
    }
  }
}
