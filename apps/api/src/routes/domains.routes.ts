import type { DomainService } from '@slipway/core';
import type { HandlerTable } from '../http/operations';

export function domainRoutes(s: { domains: DomainService }): HandlerTable {
  return {
    createDomain: ({ access, params, body }) => s.domains.create(access, params.appId, body),
    listDomains: async ({ access, params }) => ({ data: await s.domains.list(access, params.appId) }),
    getDomain: ({ access, params }) => s.domains.get(access, params.appId, params.domainId),
    verifyDomain: ({ access, params }) => s.domains.verify(access, params.appId, params.domainId),
    deleteDomain: async ({ access, params }) => {
      await s.domains.remove(access, params.appId, params.domainId);
      return { ok: true };
    },
  };
}
