import { AppError, type DeployResult, type Logger } from '@slipway/core';
import type { AgentHandlers, HealthHandlers, NodeInfo } from '@slipway/proto';
import type { AppsRuntime } from './apps.runtime';
import type { CaddyIngress } from './caddy.ingress';
import type { DockerRuntime } from './docker.runtime';
import type { OperationJournal } from './journal';
import { serve, serverStream, unary, untilCancelled, type Send } from './rpc/handlers';

export interface HandlerDeps {
  journal: OperationJournal;
  docker: DockerRuntime;
  apps: AppsRuntime;
  ingress: CaddyIngress;
  nodeInfo: () => NodeInfo;
  logger: Logger;
}

export function agentHandlers(deps: HandlerDeps): AgentHandlers {
  const { journal, docker } = deps;
  return serve<AgentHandlers>(deps.logger, {
    GetNodeInfo: unary(async () => deps.nodeInfo()),

    Noop: unary(async (req) => {
      const { replayed, entry } = await journal.run(req.operationId, 'Noop', async () => {
        if (req.delayMs > 0) await new Promise((r) => setTimeout(r, Math.min(req.delayMs, 600_000)));
        return {};
      });
      return { operationId: req.operationId, startedAtMs: entry.startedAtMs, finishedAtMs: entry.finishedAtMs ?? 0, replayed };
    }),

    ListManagedContainers: unary(async (req) => {
      const f = req.filter ?? { workspaceId: '', appId: '', deploymentId: '', databaseId: '' };
      const containers = await docker.listManaged({
        workspaceId: f.workspaceId || undefined,
        appId: f.appId || undefined,
        deploymentId: f.deploymentId || undefined,
        databaseId: f.databaseId || undefined,
      });
      return { containers };
    }),

    RemoveManagedContainers: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveManagedContainers', () => docker.removeManaged(req.containerIds));
      return { ...result, replayed };
    }),

    WatchContainerEvents: serverStream(async (_req, send, signal) => {
      const stop = await docker.watchExits((e) => void send(e)).catch(() => {
        throw new AppError('node_unavailable', 'The Docker engine is not reachable');
      });
      await untilCancelled(signal);
      stop();
    }),

    TailContainerLogs: serverStream(async (req, send, signal) => {
      const { done, stop } = await docker.logs(req.containerId, { tail: req.tail, follow: req.follow }, (stream, data) => void send({ stream, data })).catch((e: { statusCode?: number }) => {
        throw e.statusCode === 404 ? new AppError('not_found', 'No such managed container') : new AppError('node_unavailable', 'The Docker engine is not reachable');
      });
      signal.addEventListener('abort', stop, { once: true });
      await done;
    }),

    PrepareImage: serverStream((req, send) => deployStep(journal, 'PrepareImage', req.operationId, send, (emit) => deps.apps.prepareImage(req, emit))),

    RolloutApp: serverStream((req, send) =>
      deployStep(journal, 'RolloutApp', req.operationId, send, (emit) => deps.apps.rollout({ ...req, env: { ...req.env }, pruneImageRefs: [...req.pruneImageRefs] }, emit)),
    ),

    AppPower: unary(async (req) => {
      if (req.action !== 'start' && req.action !== 'stop' && req.action !== 'restart') throw new AppError('validation_failed', 'action must be start, stop or restart');
      const action = req.action;
      const { replayed } = await journal.run(req.operationId, 'AppPower', () => deps.apps.power({ ...req, action, route: req.route ?? null }));
      return { replayed };
    }),

    RemoveApp: unary(async (req) => {
      const { result, replayed } = await journal.run(req.operationId, 'RemoveApp', () => deps.apps.removeApp(req));
      return { ...result, replayed };
    }),

    SyncRoutes: unary((req) =>
      deps.ingress.sync(req.routes.map((r) => ({ appId: r.appId, host: r.host, upstreamPort: r.upstreamPort }))).catch(() => {
        throw new AppError('node_unavailable', 'The ingress is not reachable');
      }),
    ),
  });
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
