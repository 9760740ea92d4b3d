import type { AgentGateway, AgentTarget, NodeRepository } from '@slipway/core';
import type { ReadinessCheck } from '../health.routes';

/**
 * `agents`: passes only when at least one enrolled, online agent (or a configured address) answers the
 * gRPC health check over mutual TLS right now.
 */
export function agentsCheck(deps: { nodes: Pick<NodeRepository, 'list'>; agents: Pick<AgentGateway, 'health'>; addresses?: readonly string[]; timeoutMs?: number }): ReadinessCheck {
  return {
    name: 'agents',
    check: async () => {
      const online = (await deps.nodes.list()).filter((n) => n.status === 'online');
      const targets: AgentTarget[] = [
        ...online.map((n) => ({ name: n.name, grpcAddress: n.grpcAddress })),
        ...(deps.addresses ?? []).map((grpcAddress) => ({ name: null, grpcAddress })),
      ];
      if (targets.length === 0) throw new Error('no agent is enrolled and online');
      const results = await Promise.allSettled(targets.map((t) => deps.agents.health(t, deps.timeoutMs ?? 1_500)));
      if (results.some((r) => r.status === 'fulfilled')) return;
      const first = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      throw new Error(`no agent answered its health check (${targets.length} tried): ${(first?.reason as Error)?.message ?? ''}`);
    },
  };
}
