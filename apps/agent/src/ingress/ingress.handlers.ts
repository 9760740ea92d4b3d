import { AppError } from '@slipway/core';
import type { AgentHandlers } from '@slipway/proto';
import { unary, type HandlerTable } from '../rpc/handlers';
import type { CaddyIngress } from './caddy.ingress';

/** The routes of this server's Caddy, replaced as a whole from the control plane's wanted set. */
export function ingressHandlers(deps: { ingress: CaddyIngress }): Pick<HandlerTable<AgentHandlers>, 'SyncRoutes'> {
  return {
    SyncRoutes: unary((req) =>
      deps.ingress
        .sync(
          req.routes.map((r) => ({ appId: r.appId, host: r.host, upstreamPort: r.upstreamPort })),
          (req.remote ?? []).map((r) => ({ appId: r.appId, host: r.host, ownerAddress: r.ownerAddress, ownerName: r.ownerName })),
        )
        .catch(() => {
        throw new AppError('node_unavailable', 'The ingress is not reachable');
      }),
    ),
  };
}
