import pLimit from 'p-limit';

/** SLIPWAY_REMOVAL_CONCURRENCY's default. */
export const DEFAULT_REMOVAL_CONCURRENCY = 8;

/**
 * One bound for every removal this agent runs (issue 34): deleting a workspace or many apps removes their containers,
 * image tags and project folders in parallel, at most `concurrency` at once across all callers together
 * (SLIPWAY_REMOVAL_CONCURRENCY), so a workspace of hundreds of apps goes in seconds and a burst of deletions does not
 * swamp the Docker engine. 1 gives the serial order of before.
 *
 * Only leaves go through it (one container, one image tag, one folder, or one app of a workspace: its containers, then
 * its folder): a task that waited on the pool inside the pool could wait for a slot its own caller holds.
 */
export class RemovalPool {
  private readonly limit: pLimit.Limit;

  constructor(readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`The removal concurrency must be a whole number of at least 1, not ${concurrency}`);
    this.limit = pLimit(concurrency);
  }

  /**
   * Removes every item, at most `concurrency` at once (with every other caller's), and answers their results in the
   * items' order. Every removal is tried even when some fail (what can go, goes); then the first failure is thrown.
   */
  async each<T, R>(items: readonly T[], remove: (item: T) => Promise<R>): Promise<R[]> {
    const settled = await Promise.allSettled(items.map((item) => this.limit(() => remove(item))));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
  }

  /** Removals running now and waiting for a slot (for logs and tests). */
  get load(): { active: number; pending: number } {
    return { active: this.limit.activeCount, pending: this.limit.pendingCount };
  }
}
