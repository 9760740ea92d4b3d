import { randomBytes } from 'node:crypto';
import { domainToUnicode } from 'node:url';
import type { CreateDomainRequest, Domain } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { appHost, type AppsDomain } from '../apps/dto';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import type { Clock } from '../ports/clock';
import { afterCheck, judge, NO_CERTIFICATE, PENDING_FOR_MS, PENDING_RECHECK_MS } from './domain-check';
import { DomainRouting } from './domain-routing';
import type { CertificateState, DomainContext, DomainJobStore, DomainRecord, DomainRepository, DomainsGateway, IngressNode, IssuedCertificate } from './domain.ports';
import { normalizeHostname } from './hostname';

export const MAX_DOMAINS_PER_APP = 20;

const notFoundDomain = () => new AppError('not_found', 'The domain was not found');

/**
 * The records a user creates for a domain: A/AAAA at the servers serving its ingress (`server`: the app's server, or
 * every online server with a mesh, issue 31), TXT `_svc.<hostname>`, or a CNAME for subdomains.
 */
export function recordsOf(d: Pick<DomainRecord, 'hostname' | 'txtValue'>, server: string[], appHostname: string | null) {
  const labels = d.hostname.split('.').length;
  return {
    a: server.filter((ip) => !ip.includes(':')),
    aaaa: server.filter((ip) => ip.includes(':')),
    txtName: `_svc.${d.hostname}`,
    txtValue: d.txtValue,
    // A name of two labels is taken for an apex (a CNAME cannot sit beside the zone's own records there).
    cname: labels > 2 && appHostname ? appHostname : null,
  };
}

export function toDomain(d: DomainContext, appsDomain: AppsDomain, addresses: string[] = d.node?.publicIpv4 ?? []): Domain {
  const appHostname = d.app.subdomain ? appHost(d.app.subdomain, appsDomain) : null;
  const routed = d.status === 'verified' && !d.app.deleted && d.app.desiredState === 'running';
  return {
    id: d.id,
    appId: d.appId,
    hostname: d.hostname,
    hostnameUnicode: domainToUnicode(d.hostname) || d.hostname,
    status: d.status,
    dns: recordsOf(d, addresses, appHostname),
    check: d.check,
    routed,
    certificate: d.status === 'verified' ? (d.certificate ?? { ...NO_CERTIFICATE, status: 'pending' }) : NO_CERTIFICATE,
    verifiedAt: d.verifiedAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
  };
}

/**
 * Checks a domain from its app's server and records the outcome; shared by the API's verify and the re-check job. It
 * passes when its A/AAAA records point at any of `addresses` (the servers serving its ingress).
 */
export async function checkAndRecord(
  d: DomainContext,
  deps: { agents: DomainsGateway; appsDomain: AppsDomain; clock: Clock },
  addresses: string[],
  save: (changes: ReturnType<typeof afterCheck>) => Promise<DomainRecord>,
): Promise<{ record: DomainRecord; routingChanged: boolean }> {
  if (!d.node) throw new AppError('node_unavailable', "The app's workspace is not placed on a server yet");
  const expected = recordsOf(d, addresses, d.app.subdomain ? appHost(d.app.subdomain, deps.appsDomain) : null);
  const seen = await deps.agents.checkDomain({ name: d.node.name, grpcAddress: d.node.grpcAddress }, { hostname: d.hostname, txtName: expected.txtName });
  const now = deps.clock();
  const check = judge({ hostname: d.hostname, ...expected }, seen, now);
  const changes = afterCheck(d, check, now);
  const record = await save(changes);
  return { record, routingChanged: (d.status === 'verified') !== (record.status === 'verified') };
}

/** The API side: add, list, read, verify and remove the custom domains of a workspace's web apps. */
export class DomainService {
  private readonly routing: DomainRouting;

  constructor(
    private readonly deps: {
      domains: DomainRepository;
      apps: { findApp(scope: { workspaceId: string; appId: string }): Promise<{ id: string; kind: string; subdomain: string | null } | null> };
      agents: DomainsGateway;
      appsDomain: AppsDomain;
      clock: Clock;
      logger: Logger;
      /** The servers' mesh listener port (issue 31): with one, every online server serves every domain. */
      meshPort?: number;
    },
  ) {
    this.routing = new DomainRouting({ store: deps.domains, agents: deps.agents, meshPort: deps.meshPort, logger: deps.logger });
  }

  async create(access: WorkspaceAccess, appId: string, input: CreateDomainRequest): Promise<Domain> {
    const workspaceId = access.workspace.id;
    const app = await this.deps.apps.findApp({ workspaceId, appId });
    if (!app) throw new AppError('not_found', 'The app was not found');
    const { ascii } = normalizeHostname(input.hostname, this.deps.appsDomain.domain);
    if (app.kind !== 'web') throw new AppError('app_not_web', 'Only web apps can have custom domains');
    const now = this.deps.clock();
    const created = await this.deps.domains.create({
      workspaceId,
      appId: app.id,
      hostname: ascii,
      // Random per domain row: a value left from a deleted domain, or another workspace's, never matches this one.
      txtValue: `slipway-verify=${randomBytes(18).toString('base64url')}`,
      pendingUntil: new Date(now.getTime() + PENDING_FOR_MS),
      nextCheckAt: new Date(now.getTime() + PENDING_RECHECK_MS),
      maxPerApp: MAX_DOMAINS_PER_APP,
    });
    if (created === 'domain_taken') throw new AppError('domain_taken', `${ascii} is already used by an app`);
    if (created === 'limit_reached') {
      throw new AppError('quota_exceeded', `An app has at most ${MAX_DOMAINS_PER_APP} custom domains`, [
        { resource: 'domains', requested: 1, available: 0 },
      ]);
    }
    return this.get(access, appId, created.id);
  }

  async list(access: WorkspaceAccess, appId: string): Promise<Domain[]> {
    const workspaceId = access.workspace.id;
    if (!(await this.deps.apps.findApp({ workspaceId, appId }))) throw new AppError('not_found', 'The app was not found');
    const out: Domain[] = [];
    for (const d of await this.deps.domains.list({ workspaceId, appId })) {
      const full = await this.deps.domains.find({ workspaceId, appId, domainId: d.id });
      if (full) out.push(toDomain(full, this.deps.appsDomain, await this.routing.addresses(full.node)));
    }
    return out;
  }

  /**
   * The domain as recorded: no read waits on a server (issue 34). Its certificate state is what the domains.sweep job
   * last collected from its server (every minute), or what a verify asked for.
   */
  async get(access: WorkspaceAccess, appId: string, domainId: string): Promise<Domain> {
    const d = await this.find({ workspaceId: access.workspace.id, appId, domainId });
    return toDomain(d, this.deps.appsDomain, await this.routing.addresses(d.node));
  }

  async verify(access: WorkspaceAccess, appId: string, domainId: string): Promise<Domain> {
    const scope = { workspaceId: access.workspace.id, appId, domainId };
    const d = await this.find(scope);
    const addresses = await this.routing.addresses(d.node);
    const { routingChanged } = await checkAndRecord(d, this.deps, addresses, (changes) => this.deps.domains.update({ workspaceId: scope.workspaceId, domainId }, changes));
    if (routingChanged && d.node) await this.syncNode(d.node.id);
    // A write may wait on the server: a verified domain's certificate state is asked of it now (kept as last seen
    // when the server is away).
    let checked = await this.find(scope);
    if (checked.status === 'verified' && checked.node) {
      const cert = await this.certificateOf(checked).catch(() => null);
      if (cert && JSON.stringify(cert) !== JSON.stringify(checked.certificate)) {
        await this.deps.domains.update({ workspaceId: scope.workspaceId, domainId }, { certificate: cert });
        checked = { ...checked, certificate: cert };
      }
    }
    return toDomain(checked, this.deps.appsDomain, await this.routing.addresses(checked.node));
  }

  async remove(access: WorkspaceAccess, appId: string, domainId: string): Promise<void> {
    const removed = await this.deps.domains.remove({ workspaceId: access.workspace.id, appId, domainId });
    if (!removed) throw notFoundDomain();
    if (removed.nodeId) await this.syncNode(removed.nodeId);
  }

  /** A deleted app's domains go with it (their routes and TLS policies leave the server now, or at the next sweep). */
  async removeAppDomains(access: WorkspaceAccess, appId: string): Promise<void> {
    const { nodeId, count } = await this.deps.domains.removeOfApp({ workspaceId: access.workspace.id, appId });
    if (count > 0 && nodeId) await this.syncNode(nodeId);
  }

  private async find(scope: { workspaceId: string; appId: string; domainId: string }): Promise<DomainContext> {
    const d = await this.deps.domains.find(scope);
    if (!d || d.app.deleted) throw notFoundDomain();
    return d;
  }

  private async certificateOf(d: DomainContext): Promise<CertificateState | null> {
    const certs = await this.deps.agents.certificates({ name: d.node!.name, grpcAddress: d.node!.grpcAddress }, [d.hostname]);
    return certs.get(d.hostname) ?? null;
  }

  /** The server's routes follow at once (and every other server's with a mesh); one that does not answer gets them from the sweep. */
  private async syncNode(nodeId: string): Promise<void> {
    await this.routing.syncAfterChange(await this.deps.domains.node(nodeId));
  }
}

/**
 * The worker side: `domain.check` (one domain's scheduled re-check) and `domains.sweep` (queues due checks, removes the
 * domains of deleted apps, gives every online server its custom-domain routes and refreshes certificate states).
 */
export class DomainCheckService {
  constructor(
    private readonly deps: {
      store: DomainJobStore;
      agents: DomainsGateway;
      appsDomain: AppsDomain;
      clock: Clock;
      logger: Logger;
      enqueueCheck: (domainId: string) => Promise<void>;
      /** The servers' mesh listener port (issue 31): with one, every online server serves every domain. */
      meshPort?: number;
    },
  ) {
    this.routing = new DomainRouting({ store: deps.store, agents: deps.agents, meshPort: deps.meshPort, logger: deps.logger });
  }

  private readonly routing: DomainRouting;

  /** One domain's re-check; a domain gone or not due any more is left alone. */
  check = async (domainId: string): Promise<{ status: string; error: string | null } | null> => {
    const d = await this.deps.store.get(domainId);
    if (!d || d.app.deleted || !d.nextCheckAt || d.nextCheckAt.getTime() > this.deps.clock().getTime()) return null;
    const { record, routingChanged } = await checkAndRecord(d, this.deps, await this.routing.addresses(d.node), (changes) => this.deps.store.update(domainId, changes));
    // The outcome is recorded; a server that does not take the routes now gets them from the next sweep.
    if (routingChanged && d.node) await this.routing.syncAfterChange(d.node);
    return { status: record.status, error: record.check?.error ?? null };
  };

  sweep = async (): Promise<{ queued: number; removed: number; nodes: number }> => {
    const due = await this.deps.store.due(this.deps.clock(), 500);
    for (const id of due) await this.deps.enqueueCheck(id);
    const removed = (await this.deps.store.removeOfDeletedApps()).length;
    const online = await this.deps.store.onlineNodes();
    // Each owner's certificate states first, and with a mesh the chains and keys its Caddy obtained: the other servers
    // are given them with their routes (one ACME order per hostname, on the owner; issue 31).
    const issued = new Map<string, IssuedCertificate>();
    for (const node of online) {
      await this.refreshCertificates(node, issued).catch((e: Error) => this.deps.logger.warn({ node: node.name, err: e.message }, 'certificate states not refreshed'));
    }
    const { synced } = await this.routing.syncAll(online, issued);
    return { queued: due.length, removed, nodes: synced.length };
  };

  /** One server's domains: its own, and with a mesh every other online server's (no certificates relayed: the sweep does). */
  async syncNode(node: { id: string; name: string; grpcAddress: string }): Promise<{ added: number; removed: number }> {
    return this.routing.syncNode(node);
  }

  private async refreshCertificates(node: IngressNode, issued: Map<string, IssuedCertificate>): Promise<void> {
    const verified = await this.deps.store.verifiedOnNode(node.id);
    if (!verified.length) return;
    const target = { name: node.name, grpcAddress: node.grpcAddress };
    const certs = await this.deps.agents.certificates(target, verified.map((d) => d.hostname));
    for (const d of verified) {
      const cert = certs.get(d.hostname);
      if (cert && JSON.stringify(cert) !== JSON.stringify(d.certificate)) await this.deps.store.update(d.id, { certificate: cert });
    }
    if (!this.routing.mesh) return;
    const withKeys = verified.filter((d) => certs.get(d.hostname)?.status === 'issued').map((d) => d.hostname);
    if (!withKeys.length) return;
    for (const [hostname, pem] of await this.deps.agents.issuedCertificates(target, withKeys)) issued.set(hostname, pem);
  }
}
