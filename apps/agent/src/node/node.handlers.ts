import type { Logger } from '@slipway/core';
import type { AgentHandlers, HealthHandlers, NodeInfo } from '@slipway/proto';
import { serve, serverStream, unary, untilCancelled, type HandlerTable } from '../rpc/handlers';
import type { OperationJournal } from '../rpc/journal';

/** This server itself: who it is and what it has (GetNodeInfo), and the journal's round trip (Noop). */
export function nodeHandlers(deps: { journal: OperationJournal; nodeInfo: () => Promise<NodeInfo> }): Pick<HandlerTable<AgentHandlers>, 'GetNodeInfo' | 'Noop'> {
  return {
    GetNodeInfo: unary(() => deps.nodeInfo()),

    Noop: unary(async (req) => {
      const { replayed, entry } = await deps.journal.run(req.operationId, 'Noop', async () => {
        if (req.delayMs > 0) await new Promise((r) => setTimeout(r, Math.min(req.delayMs, 600_000)));
        return {};
      });
      return { operationId: req.operationId, startedAtMs: entry.startedAtMs, finishedAtMs: entry.finishedAtMs ?? 0, replayed };
    }),
  };
}

/** grpc.health.v1.Health: SERVING until the agent begins to shut down. */
export function healthHandlers(isServing: () => boolean, logger: Logger): HealthHandlers {
  const status = () => ({ status: isServing() ? ('SERVING' as const) : ('NOT_SERVING' as const) });
  return serve<HealthHandlers>(logger, {
    Check: unary(async () => status()),
    Watch: serverStream(async (_req, send, signal) => {
      await send(status());
      await untilCancelled(signal);
    }),
  });
}
