import type { AgentGateway, ContainerExitEvent, Logger, NodeRecord, NodeRepository } from '@slipway/core';

/**
 * One WatchContainerEvents stream per online node. Streams that break are opened again on the next
 * refresh; nodes that went offline are dropped. Each exit goes to `onExit`.
 */
export class ContainerEventSubscriptions {
  private readonly streams = new Map<string, { address: string; stop(): void }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      nodes: NodeRepository;
      agents: AgentGateway;
      logger: Logger;
      onExit: (node: NodeRecord, e: ContainerExitEvent) => void;
    },
  ) {}

  start(refreshMs: number): void {
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
        },
      );
      const entry = { address: node.grpcAddress, stop: sub.stop };
      this.streams.set(node.id, entry);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const s of this.streams.values()) s.stop();
    this.streams.clear();
  }
}
