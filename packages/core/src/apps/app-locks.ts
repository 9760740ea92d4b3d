/**
 * One holder at a time per app, across every worker process: the rollout of a deployment, the `app.power` jobs and
 * the reconciler's repairs of an app take it, so the work on one app never interleaves. packages/db implements it
 * with PostgreSQL advisory locks held by a connection (released when the holder's process dies, so it survives
 * worker restarts).
 */
export interface AppLocks {
  /** Runs `work` holding the app's lock, waiting for it as long as the implementation allows. */
  withApp<T>(appId: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` holding the app's lock only when it is free now; null when another holder has it. */
  tryWithApp<T>(appId: string, work: () => Promise<T>): Promise<{ value: T } | null>;
}

/** Locks of one process (unit tests, and a runner composed without a database). */
export class InProcessAppLocks implements AppLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async withApp<T>(appId: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(appId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(appId, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(appId) === tail) this.tails.delete(appId);
    }
  }

  async tryWithApp<T>(appId: string, work: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.tails.has(appId)) return null;
    return { value: await this.withApp(appId, work) };
  }
}
