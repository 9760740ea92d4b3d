import { AppError, type Logger } from '@slipway/core';
import type { DomainsHandlers } from '@slipway/proto';
import type { CustomDomains } from '../ingress/custom-domains';
import { serve, unary, type HandlerTable } from '../rpc/handlers';
import { checkDns } from './dns-check';

/** The `slipway.agent.v1.Domains` service: DNS checks with this server's resolvers, custom-domain routes, certificates. */
export function domainsHandlers(deps: { domains: CustomDomains; logger: Logger }): DomainsHandlers {
  const { domains, logger } = deps;
  const table: HandlerTable<DomainsHandlers> = {
    CheckDomain: unary(async (req) => {
      if (!req.hostname || !req.txtName) throw new AppError('validation_failed', 'hostname and txt_name are required');
      return checkDns(req.hostname, req.txtName, domains.settings.resolvers);
    }),
    SyncDomains: unary((req) =>
      domains
        .sync(
          req.domains.map((d) => ({ domainId: d.domainId, appId: d.appId, hostname: d.hostname })),
          req.remote.map((d) => ({ ...d })),
        )
        .catch((e: Error) => {
        logger.warn({ err: e.message }, 'custom domains not synced');
        throw new AppError('node_unavailable', `The ingress did not take the custom domains: ${e.message}`);
      }),
    ),
    DomainCertificates: unary(async (req) => ({ certificates: await domains.certificates(req.hostnames, { withKeys: req.withKeys }) })),
  };
  return serve<DomainsHandlers>(logger, table);
}
