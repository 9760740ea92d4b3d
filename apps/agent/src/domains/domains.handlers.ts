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
    // A workspace move carries its domains' certificates from the old owner's Caddy storage to the new owner's (issue 32).
    ExportCertificates: unary(async (req) => ({ certificates: await domains.storedCertificates(req.hostnames) })),
    ImportCertificates: unary(async (req) => {
      const stored = await domains.storeCertificates(req.certificates.map((c) => ({ hostname: c.hostname, issuerKey: c.issuerKey, certificatePem: c.certificatePem, keyPem: c.keyPem, metaJson: c.metaJson })));
      if (stored) logger.info({ hostnames: req.certificates.map((c) => c.hostname) }, 'custom-domain certificates stored (workspace move)');
      return { stored };
    }),
    RemoveCertificates: unary(async (req) => {
      const { removed, kept } = await domains.removeCertificates(req.hostnames);
      if (removed) logger.info({ hostnames: req.hostnames, removed, kept }, 'custom-domain certificates removed (workspace moved away)');
      return { removed, kept };
    }),
  };
  return serve<DomainsHandlers>(logger, table);
}
