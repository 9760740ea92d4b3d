/**
 * The one discipline of builds and image removal on a server (issue 30, item 5). The classic builder reuses cached
 * layers that are untagged parents of other apps' images; removing such an image (a workspace's teardown, pruning
 * old releases) deletes the parents nobody else references yet, and a build that had just reused one fails with
 * "unknown parent image ID". So a removal waits until no build runs, and builds that start while a removal waits
 * wait for it (a removal never waits for ever behind a stream of builds). Builds run side by side (the builder's
 * own slots bound them); removals run one at a time.
 */
export class ImageGate {
  private builds = 0;
  private removing = false;
  private readonly waitingRemovals: (() => void)[] = [];
  private readonly waitingBuilds: (() => void)[] = [];

  /** Runs a build: at once, unless a removal runs or waits. */
  async building<T>(fn: () => Promise<T>): Promise<T> {
    if (this.removing || this.waitingRemovals.length > 0) await new Promise<void>((r) => this.waitingBuilds.push(r));
    else this.builds++;
    try {
      return await fn();
    } finally {
      this.builds--;
      this.next();
    }
  }

  /** Runs a removal of images once no build runs (and no other removal). */
  async removal<T>(fn: () => Promise<T>): Promise<T> {
    if (this.builds > 0 || this.removing) await new Promise<void>((r) => this.waitingRemovals.push(r));
    else this.removing = true;
    try {
      return await fn();
    } finally {
      this.removing = false;
      this.next();
    }
  }

  /** True while a build or a removal runs (a removal about to wait says so in its log). */
  get busy(): boolean {
    return this.builds > 0 || this.removing;
  }

  /** Hands the gate on: to the first waiting removal when nothing runs, else to every waiting build when no removal waits. */
  private next(): void {
    if (this.removing) return;
    if (this.waitingRemovals.length > 0) {
      if (this.builds > 0) return;
      this.removing = true;
      this.waitingRemovals.shift()!();
      return;
    }
    const builds = this.waitingBuilds.splice(0);
    this.builds += builds.length;
    for (const go of builds) go();
  }
}
