import { AppError, type DeployResult } from '@slipway/core';
import type { AgentHandlers } from '@slipway/proto';
import { serverStream, unary, type HandlerTable, type Send } from '../rpc/handlers';
import type { OperationJournal } from '../rpc/journal';
import type { AppsRuntime } from './apps.runtime';

/** App deployments on this server: image preparation, rollout, power, removal; each once per operation id. */
export function appsHandlers(deps: { journal: OperationJournal; apps: AppsRuntime }): Pick<HandlerTable<AgentHandlers>, 'PrepareImage' | 'RolloutApp' | 'AppPower' | 'RemoveApp'> {
  const { journal, apps } = deps;
  return {
    PrepareImage: serverStream((req, send) => deployStep(journal, 'PrepareImage', req.operationId, send, (emit) => apps.prepareImage(req, emit))),

    RolloutApp: serverStream((req, send) =>
      deployStep(journal, 'RolloutApp', req.operationId, send, (emit) => apps.rollout({ ...req, env: { ...req.env }, pruneImageRefs: [...req.pruneImageRefs] }, emit)),
    ),

    AppPower: unary(async (req) => {
      const action = req.action;
      if (action !== 'start' && action !== 'stop' && action !== 'restart') throw new AppError('validation_failed', 'action must be start, stop or restart');
      const { replayed } = await journal.run(req.operationId, 'AppPower', () => apps.power({ ...req, action, route: req.route ?? null }));
      return { replayed };
    }),

    RemoveApp: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveApp', () => apps.removeApp(req));
      return { ...result, replayed };
    }),
  };
}

/**
 * A deployment step streamed to the caller: each log line as it happens, then the result. The journal makes the
 * step happen once per operation id; a repeated call after it finished gets the recorded result alone.
 */
async function deployStep(
  journal: OperationJournal,
  command: string,
  operationId: string,
  send: Send<{ line?: string; result?: DeployResult | null }>,
  work: (emit: (line: string) => void) => Promise<DeployResult>,
): Promise<void> {
  const { result } = await journal.run(operationId, command, () => work((line) => void send({ line })));
  await send({ result });
}
