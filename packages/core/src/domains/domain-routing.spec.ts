// Custom domains on several servers (issue 31): DNS may point at any server serving ingress, every server routes every
// verified domain, and the certificate the owner obtained is relayed to the others (never ordered twice).
import type { Logger } from '../logging';
import { ingressAddresses, remoteDomainsFor } from './domain-routing';
import type { CertificateState, DomainContext, DomainJobStore, DomainsGateway, IngressNode, IssuedCertificate, RemoteDomain, RoutedDomain } from './domain.ports';
import { DomainCheckService, toDomain } from './domain.service';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet } as unknown as Logger;
const node = (i: number): IngressNode => ({ id: `n${i}`, name: `fleet-${i}`, grpcAddress: `198.18.0.${10 + i}:7443`, publicIpv4: [`198.18.0.${10 + i}`] });
const [A, B, C] = [node(1), node(2), node(3)];
const onC: RoutedDomain = { domainId: 'd1', appId: 'app1', hostname: 'shop.example.test' };
const pem: IssuedCertificate = { certificatePem: '-----BEGIN CERTIFICATE-----\nC\n', keyPem: '-----BEGIN EC PRIVATE KEY-----\nK\n' };
const now = new Date('2026-11-26T00:00:00.000Z');

describe('ingressAddresses', () => {
  it("lists every online server's addresses with a mesh, the owner's alone without one", () => {
    expect(ingressAddresses(C, [B, A, C], true)).toEqual(['198.18.0.11', '198.18.0.12', '198.18.0.13']);
    expect(ingressAddresses(C, [A, B, C], false)).toEqual(['198.18.0.13']);
    // The owner offline for a moment still counts: its records stay valid.
    expect(ingressAddresses(C, [A], true)).toEqual(['198.18.0.11', '198.18.0.13']);
    expect(ingressAddresses(null, [], true)).toEqual([]);
  });
});

describe('remoteDomainsFor', () => {
  const owners = [
    { node: A, routed: [] },
    { node: C, routed: [onC] },
  ];

  it("gives a server the other servers' domains with their owner's mesh and challenge addresses and certificate", () => {
    expect(remoteDomainsFor(A.id, owners, 7444, new Map([[onC.hostname, pem]]))).toEqual([
      { ...onC, ownerAddress: '198.18.0.13:7444', ownerName: 'fleet-3', challengeAddress: '198.18.0.13:80', certificate: pem },
    ]);
    expect(remoteDomainsFor(A.id, owners, 7444, new Map())[0]!.certificate).toBeNull();
  });

  it('never gives a server its own domains as remote, and none at all without a mesh', () => {
    expect(remoteDomainsFor(C.id, owners, 7444, new Map())).toEqual([]);
    expect(remoteDomainsFor(A.id, owners, 0, new Map())).toEqual([]);
  });
});

/** A store with one verified domain of an app on C, and an agent double recording what each server was given. */
function fleetOf(o: { a: string[]; status?: 'pending' | 'verified' }) {
  const domain: DomainContext = {
    id: 'd1',
    workspaceId: 'w1',
    appId: 'app1',
    hostname: onC.hostname,
    status: o.status ?? 'verified',
    txtValue: 'slipway-verify=tok',
    check: null,
    failures: 0,
    pendingUntil: new Date(now.getTime() + 3600_000),
    nextCheckAt: now,
    verifiedAt: o.status === 'pending' ? null : now,
    certificate: null,
    createdAt: now,
    app: { kind: 'web', subdomain: 'shop', deleted: false, desiredState: 'running' },
    node: C,
  };
  const synced = new Map<string, { own: RoutedDomain[]; remote: RemoteDomain[] }>();
  const asked: { node: string; withKeys: boolean }[] = [];
  const issued: CertificateState = { status: 'issued', issuer: 'Pebble Intermediate CA', notAfter: '2027-02-24T00:00:00.000Z', error: null };
  const agents: DomainsGateway = {
    checkDomain: async () => ({ a: o.a, aaaa: [], txt: ['slipway-verify=tok'], cnames: [], error: null }),
    syncDomains: async (t, own, remote = []) => {
      synced.set(String(t.name), { own, remote });
      return { added: 0, removed: 0 };
    },
    certificates: async (t, hostnames) => {
      asked.push({ node: String(t.name), withKeys: false });
      return new Map(hostnames.map((h) => [h, issued]));
    },
    issuedCertificates: async (t, hostnames) => {
      asked.push({ node: String(t.name), withKeys: true });
      return new Map(hostnames.map((h) => [h, pem]));
    },
  };
  const store: DomainJobStore = {
    get: async () => ({ ...domain }),
    update: async (_id, changes) => Object.assign(domain, changes),
    due: async () => [],
    removeOfDeletedApps: async () => [],
    routedOnNode: async (id) => (id === C.id && domain.status === 'verified' ? [onC] : []),
    onlineNodes: async () => [A, B, C],
    verifiedOnNode: async (id) => (id === C.id && domain.status === 'verified' ? [domain] : []),
  };
  const service = (meshPort: number) =>
    new DomainCheckService({ store, agents, appsDomain: { domain: 'apps.example.test', scheme: 'https' }, clock: () => now, logger: quiet, enqueueCheck: async () => {}, meshPort });
  return { domain, synced, asked, service };
}

describe('DomainCheckService on several servers', () => {
  it("relays the owner's certificate to every other server with its routes; the owner is never given its own as remote", async () => {
    const f = fleetOf({ a: ['198.18.0.13'] });
    expect(await f.service(7444).sweep()).toEqual({ queued: 0, removed: 0, nodes: 3 });
    // The chain and key are asked of the owner only.
    expect(f.asked).toEqual([
      { node: 'fleet-3', withKeys: false },
      { node: 'fleet-3', withKeys: true },
    ]);
    expect(f.synced.get('fleet-3')).toEqual({ own: [onC], remote: [] });
    for (const other of ['fleet-1', 'fleet-2']) {
      expect(f.synced.get(other)).toEqual({
        own: [],
        remote: [{ ...onC, ownerAddress: '198.18.0.13:7444', ownerName: 'fleet-3', challengeAddress: '198.18.0.13:80', certificate: pem }],
      });
    }
    expect(f.domain.certificate).toMatchObject({ status: 'issued' });
  });

  it('without a mesh, each server routes only its own domains and no key leaves the owner', async () => {
    const f = fleetOf({ a: ['198.18.0.13'] });
    await f.service(0).sweep();
    expect(f.asked).toEqual([{ node: 'fleet-3', withKeys: false }]);
    expect(f.synced.get('fleet-1')).toEqual({ own: [], remote: [] });
  });

  it('verifies a domain whose A record points at another server serving ingress, and asks for every server in its DNS records', async () => {
    const f = fleetOf({ a: ['198.18.0.11'], status: 'pending' });
    expect(await f.service(7444).check('d1')).toEqual({ status: 'verified', error: null });
    // Routing changed: the owner and every other server are given the domain at once.
    expect([...f.synced.keys()].sort()).toEqual(['fleet-1', 'fleet-2', 'fleet-3']);
    expect(f.synced.get('fleet-2')!.remote.map((d) => d.hostname)).toEqual([onC.hostname]);
    expect(toDomain(f.domain, { domain: 'apps.example.test', scheme: 'https' }, ingressAddresses(C, [A, B, C], true)).dns.a).toEqual(['198.18.0.11', '198.18.0.12', '198.18.0.13']);
  });

  it("refuses an A record at an address that is no server's, naming every server it may point at", async () => {
    const f = fleetOf({ a: ['203.0.113.9'], status: 'pending' });
    expect(await f.service(7444).check('d1')).toEqual({ status: 'pending', error: 'A record points at 203.0.113.9, expected 198.18.0.11, 198.18.0.12, 198.18.0.13' });
  });
});
