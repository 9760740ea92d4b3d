/** How long after the agent's own call ends its events still count as its doing (the engine's stream can lag). */
const TAIL_MS = 2_000;

/** The engine's events each of the agent's calls causes (a kill request's own `kill` event is read for its signal only). */
export const CALL_EVENTS = {
  start: ['start'],
  stop: ['die'],
  restart: ['die', 'start'],
  remove: ['die', 'destroy'],
} as const satisfies Record<string, readonly string[]>;
export type ContainerCall = keyof typeof CALL_EVENTS;

/**
 * What the agent itself is doing to containers (stop, restart, kill, remove, start), so that the engine's events can
 * be told apart: one the agent caused is `platform`, any other (docker stop/kill/rm by hand, a crash, the OOM
 * killer, the restart policy) is `external`. Every such call passes through DockerRuntime, the only door to the
 * engine, which marks it here for its length and a short tail after. A container is named by id (full or short) or
 * by name, as callers happen to hold it.
 */
export class ContainerIntents {
  private readonly active = new Map<string, { call: ContainerCall; running: number; until: number }[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Marks the container for the length of `work` (and a short tail after it ends, however it ends): the events the
   * call causes (CALL_EVENTS) are the platform's then, and only those — a `docker kill` right after the agent
   * started the container is still someone else's.
   */
  async around<T>(container: string, call: ContainerCall, work: () => Promise<T>): Promise<T> {
    const key = container.replace(/^\//, '');
    const entry = { call, running: 1, until: 0 };
    this.active.set(key, [...(this.active.get(key) ?? []), entry]);
    try {
      return await work();
    } finally {
      entry.running = 0;
      entry.until = this.now() + TAIL_MS;
      this.prune();
    }
  }

  /** Whether an event of the container (its full id, and its name when the event carries one) is the agent's doing. */
  caused(id: string, name: string, action: string): boolean {
    const at = this.now();
    for (const [key, entries] of this.active) {
      if (key !== name && !(key.length >= 12 && id.startsWith(key))) continue;
      if (entries.some((e) => (e.running > 0 || e.until >= at) && (CALL_EVENTS[e.call] as readonly string[]).includes(action))) return true;
    }
    return false;
  }

  private prune(): void {
    const at = this.now();
    for (const [key, entries] of this.active) {
      const live = entries.filter((e) => e.running > 0 || e.until >= at);
      if (live.length) this.active.set(key, live);
      else this.active.delete(key);
    }
  }
}
