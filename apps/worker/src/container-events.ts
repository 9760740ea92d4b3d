import type { AgentGateway, ContainerExitEvent, ContainerSnapshot, Logger, NodeRecord, NodeRepository } from '@slipway/core';

/**
 * One WatchContainerEvents stream per online node. A stream that breaks (the agent restarted) is opened again
 * within a couple of seconds, and at every refresh; nodes that went offline are dropped. Each exit goes to
 * `onExit`; each snapshot (first on every stream, and again after the node's Docker engine restarted) to
 * `onSnapshot`.
 */
export class ContainerEventSubscriptions {
  private readonly streams = new Map<string, { address: string; stop(): void }>();
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly deps: {
      nodes: NodeRepository;
      agents: AgentGateway;
      logger: Logger;
      onExit: (node: NodeRecord, e: ContainerExitEvent) => void;
      onSnapshot?: (node: NodeRecord, s: ContainerSnapshot) => void;
      /** How soon a broken stream is opened again (default 2 s). */
      retryMs?: number;
    },
  ) {}

  start(refreshMs: number): void {
    this.stopped = false;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), refreshMs);
    this.timer.unref();
  }

  async refresh(): Promise<void> {
    const online = (await this.deps.nodes.list().catch(() => [])).filter((n) => n.status === 'online');
    const ids = new Set(online.map((n) => n.id));
    for (const [id, s] of this.streams) {
      if (!ids.has(id)) {
        s.stop();
        this.streams.delete(id);
      }
    }
    for (const node of online) {
      const current = this.streams.get(node.id);
      if (current && current.address === node.grpcAddress) continue;
      current?.stop();
      const sub = this.deps.agents.watchContainerEvents(
        { name: node.name, grpcAddress: node.grpcAddress },
        (e) => this.deps.onExit(node, e),
        (err) => {
          if (this.streams.get(node.id) === entry) this.streams.delete(node.id);
          if (err) this.deps.logger.debug({ node: node.name, err: err.message }, 'container event stream ended');
          this.refreshSoon();
        },
        (snapshot) => this.deps.onSnapshot?.(node, snapshot),
        // Removals and starts too: a container removed behind the platform's back is recreated at once.
        { lifecycle: true },
      );
      const entry = { address: node.grpcAddress, stop: sub.stop };
      this.streams.set(node.id, entry);
    }
  }

  /** One refresh a little later (not one per broken stream): the agent may be restarting. */
  private refreshSoon(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.refresh();
    }, this.deps.retryMs ?? 2_000);
    this.retry.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.timer) clearInterval(this.timer);
    for (const s of this.streams.values()) s.stop();
    this.streams.clear();
  }
}
