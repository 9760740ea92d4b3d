/** The kinds of resources whose work is serialized; each has its own key space (an app and a database never share a lock). */
export const RESOURCE_KINDS = ['app', 'database'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
/** What can be locked: a converged resource, or a workspace (held by a move of it, issue 32: two moves of one workspace never interleave). */
export type LockKind = ResourceKind | 'workspace';

/**
 * One holder at a time per resource (kind and id), across every worker process: a deployment's rollout, the power and
 * database jobs, backups and restores of a database, and the reconciler's repairs take it, so the work on one
 * resource never interleaves. packages/db implements it with PostgreSQL advisory locks held by a connection (released
 * when the holder's process dies, so it survives worker restarts), one key space per kind.
 */
export interface ResourceLocks {
  /** Runs `work` holding the resource's lock, waiting for it as long as the implementation allows. */
  hold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<T>;
  /** Runs `work` holding the resource's lock only when it is free now; null when another holder has it. */
  tryHold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<{ value: T } | null>;
  /**
   * Runs `work` holding every listed lock at once (a move holds its workspace's apps and databases), waiting as `hold`
   * does; all are taken together or none is held while waiting, and they cost one connection, not one each.
   */
  holdAll<T>(keys: readonly (readonly [LockKind, string])[], work: () => Promise<T>): Promise<T>;
}

/** Locks of one process (unit tests, and a runner composed without a database). */
export class InProcessResourceLocks implements ResourceLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async hold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<T> {
    const key = `${kind}:${id}`;
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  async tryHold<T>(kind: LockKind, id: string, work: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.tails.has(`${kind}:${id}`)) return null;
    return { value: await this.hold(kind, id, work) };
  }

  holdAll<T>(keys: readonly (readonly [LockKind, string])[], work: () => Promise<T>): Promise<T> {
    // In one process, nested holds in one order cannot deadlock with another holdAll.
    const sorted = [...keys].sort((x, y) => `${x[0]}:${x[1]}`.localeCompare(`${y[0]}:${y[1]}`));
    const nest = (i: number): Promise<T> => (i === sorted.length ? work() : this.hold(sorted[i]![0], sorted[i]![1], () => nest(i + 1)));
    return nest(0);
  }
}
