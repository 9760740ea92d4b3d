// Issue 34, item 1 ("the same rule for every resource's read"): a custom domain's read answers what is recorded,
// its certificate state as the domains.sweep job (or a verify) last collected it, and never asks its server; before,
// GET …/domains/{id} asked the owner's agent for the certificate state at every read.
import { AppError } from '../errors';
import type { WorkspaceAccess } from '../auth/actor';
import type { DomainContext, DomainRepository, DomainsGateway } from './domain.ports';
import { DomainService } from './domain.service';

const ISSUED = { status: 'issued' as const, issuer: 'Pebble Intermediate CA', notAfter: '2027-02-25T00:00:00.000Z', error: null };

const DOMAIN: DomainContext = {
  id: '0195f2c4-0000-7000-8000-000000000001',
  workspaceId: '0195f2c4-0000-7000-8000-0000000000aa',
  appId: '0195f2c4-0000-7000-8000-0000000000bb',
  hostname: 'shop.example.test',
  status: 'verified',
  txtValue: 'slipway-verify=abc',
  check: { a: ['198.18.0.1'], aaaa: [], txt: true, cname: null, at: '2026-11-27T12:00:00.000Z', error: null },
  failures: 0,
  pendingUntil: new Date('2026-11-28T00:00:00Z'),
  nextCheckAt: null,
  verifiedAt: new Date('2026-11-27T12:00:00Z'),
  certificate: ISSUED,
  createdAt: new Date('2026-11-27T11:00:00Z'),
  app: { kind: 'web', subdomain: 'shop-ws', deleted: false, desiredState: 'running' },
  node: { id: 'n1', name: 'node-1', grpcAddress: '198.18.0.1:7443', publicIpv4: ['198.18.0.1'] },
};

/** A server that is away: every call fails, and is counted. */
function awayServer() {
  const calls: string[] = [];
  const away = (name: string) => async () => {
    calls.push(name);
    throw new AppError('node_unavailable', 'The server did not answer');
  };
  const gateway: DomainsGateway = { checkDomain: away('checkDomain'), syncDomains: away('syncDomains'), certificates: away('certificates'), issuedCertificates: away('issuedCertificates') };
  return { gateway, calls };
}

describe('a custom domain read never asks its server (issue 34)', () => {
  it('GET …/domains/{id} answers the collected certificate state while the server is away, without calling it', async () => {
    const { gateway, calls } = awayServer();
    const domains = { find: async () => DOMAIN } as unknown as DomainRepository;
    const service = new DomainService({
      domains,
      apps: { findApp: async () => ({ id: DOMAIN.appId, kind: 'web', subdomain: 'shop-ws' }) },
      agents: gateway,
      appsDomain: { domain: 'apps.example.test', scheme: 'http' },
      clock: () => new Date('2026-11-27T13:00:00Z'),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never,
    });
    const access = { workspace: { id: DOMAIN.workspaceId } } as unknown as WorkspaceAccess;
    const read = await service.get(access, DOMAIN.appId, DOMAIN.id);
    expect(read.certificate).toEqual(ISSUED);
    expect(read.status).toBe('verified');
    expect(calls).toEqual([]);
  });
});
