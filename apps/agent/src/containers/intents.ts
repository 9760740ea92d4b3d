/** How long after the agent's own call ends its events still count as its doing (the engine's stream can lag). */
const TAIL_MS = 5_000;

/**
 * What the agent itself is doing to containers (stop, restart, kill, remove, start), so that the engine's events can
 * be told apart: one the agent caused is `platform`, any other (docker stop/kill/rm by hand, a crash, the OOM
 * killer, the restart policy) is `external`. Every such call passes through DockerRuntime, the only door to the
 * engine, which marks it here for its length and a short tail after. A container is named by id (full or short) or
 * by name, as callers happen to hold it.
 */
export class ContainerIntents {
  private readonly active = new Map<string, { running: number; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Marks the container for the length of `work` (and a short tail after it ends, however it ends). */
  async around<T>(container: string, work: () => Promise<T>): Promise<T> {
    const key = container.replace(/^\//, '');
    const entry = this.active.get(key) ?? { running: 0, until: 0 };
    entry.running++;
    this.active.set(key, entry);
    try {
      return await work();
    } finally {
      entry.running--;
      entry.until = this.now() + TAIL_MS;
      this.prune();
    }
  }

  /** Whether an event of the container (its full id, and its name when the event carries one) is the agent's doing. */
  caused(id: string, name = ''): boolean {
    const at = this.now();
    for (const [key, e] of this.active) {
      if (e.running === 0 && e.until < at) continue;
      if (key === name || (key.length >= 12 && id.startsWith(key))) return true;
    }
    return false;
  }

  private prune(): void {
    const at = this.now();
    for (const [key, e] of this.active) if (e.running === 0 && e.until < at) this.active.delete(key);
  }
}
