// Custom domains on several servers (issue 31, docs/decisions/0034-custom-domains-across-servers.md): every server that
// serves ingress routes every verified domain; the owner of the app obtains the certificate (one ACME order) and the
// control plane hands its chain and key to the others, which load it into their Caddy and never order one themselves.
import type { Logger } from '../logging';
import type { DomainsGateway, IngressNode, IssuedCertificate, RemoteDomain, RoutedDomain } from './domain.ports';

/** The port HTTP-01 validations connect to: every server that serves a custom domain listens there (its ingress). */
export const HTTP_CHALLENGE_PORT = 80;

export interface DomainSyncStore {
  routedOnNode(nodeId: string): Promise<RoutedDomain[]>;
  onlineNodes(): Promise<IngressNode[]>;
}

type Target = { id: string; name: string; grpcAddress: string };

/** The host of a host:port address ([v6]:port too). */
export function hostOfAddress(address: string): string {
  const m = /^\[?([^\]]*)\]?:\d+$/.exec(address);
  return m ? m[1]! : address;
}

const withPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * The addresses a custom domain's A/AAAA records may point at: with a mesh, every online server's public addresses
 * (each serves every app's domains) and the owner's; without one, the owner's only. Sorted, no duplicates.
 */
export function ingressAddresses(owner: { publicIpv4: string[] } | null, online: { publicIpv4: string[] }[], mesh: boolean): string[] {
  const all = [...(owner?.publicIpv4 ?? []), ...(mesh ? online.flatMap((n) => n.publicIpv4) : [])];
  return [...new Set(all)].sort();
}

/** Other servers' routed domains as `nodeId` routes them (none without a mesh). */
export function remoteDomainsFor(
  nodeId: string,
  owners: { node: IngressNode; routed: RoutedDomain[] }[],
  meshPort: number,
  certificates: Map<string, IssuedCertificate>,
): RemoteDomain[] {
  if (!meshPort) return [];
  const out: RemoteDomain[] = [];
  for (const { node, routed } of owners) {
    if (node.id === nodeId) continue;
    const host = hostOfAddress(node.grpcAddress);
    for (const d of routed) {
      out.push({
        ...d,
        ownerAddress: withPort(host, meshPort),
        ownerName: node.name,
        challengeAddress: withPort(host, HTTP_CHALLENGE_PORT),
        certificate: certificates.get(d.hostname) ?? null,
      });
    }
  }
  return out;
}

/** Gives servers their custom-domain routes: their own domains and, with a mesh, every other online server's. */
export class DomainRouting {
  constructor(
    private readonly deps: {
      store: DomainSyncStore;
      agents: DomainsGateway;
      /** The servers' mesh listener port (SLIPWAY_MESH_PORT); 0 or absent: each server routes only its own domains. */
      meshPort?: number;
      logger: Logger;
    },
  ) {}

  get mesh(): boolean {
    return Boolean(this.deps.meshPort);
  }

  async addresses(owner: { publicIpv4: string[] } | null): Promise<string[]> {
    return ingressAddresses(owner, this.mesh ? await this.deps.store.onlineNodes() : [], this.mesh);
  }

  /** One server's set: its own domains and the others' (their certificates when `certificates` has them). */
  async syncNode(node: Target, certificates = new Map<string, IssuedCertificate>()): Promise<{ added: number; removed: number }> {
    const own = await this.deps.store.routedOnNode(node.id);
    const owners = this.mesh ? await this.owners(await this.deps.store.onlineNodes()) : [];
    return this.deps.agents.syncDomains(node, own, remoteDomainsFor(node.id, owners, this.deps.meshPort ?? 0, certificates));
  }

  /**
   * After a domain's routing changed on `owner`: with a mesh every other online server first (each gets the domain
   * without a certificate until the sweep relays the owner's, and forwards its HTTP-01 challenges to the owner from
   * then on), then the owner, whose Caddy orders the certificate: wherever the name's DNS points, the CA's validation
   * reaches the owner. A server that does not answer gets it from the next sweep.
   */
  async syncAfterChange(owner: Target | null): Promise<void> {
    const targets: Target[] = [];
    if (this.mesh) for (const n of await this.deps.store.onlineNodes()) if (n.id !== owner?.id) targets.push(n);
    if (owner) targets.push(owner);
    for (const node of targets) {
      await this.syncNode(node).catch((e: Error) => this.deps.logger.warn({ node: node.name, err: e.message }, 'custom-domain routes not synced (the sweep retries)'));
    }
  }

  /** Every online server's set, from one read of the owners; `certificates` relayed to the servers that do not own them. */
  async syncAll(nodes: IngressNode[], certificates: Map<string, IssuedCertificate>): Promise<{ synced: IngressNode[]; failed: number }> {
    const owners = await this.owners(nodes);
    const synced: IngressNode[] = [];
    let failed = 0;
    for (const { node, routed } of owners) {
      try {
        await this.deps.agents.syncDomains(node, routed, remoteDomainsFor(node.id, owners, this.deps.meshPort ?? 0, certificates));
        synced.push(node);
      } catch (e) {
        failed++;
        this.deps.logger.warn({ node: node.name, err: (e as Error).message }, 'custom domains not synced');
      }
    }
    return { synced, failed };
  }

  private async owners(nodes: IngressNode[]): Promise<{ node: IngressNode; routed: RoutedDomain[] }[]> {
    const out: { node: IngressNode; routed: RoutedDomain[] }[] = [];
    for (const node of nodes) out.push({ node, routed: await this.deps.store.routedOnNode(node.id) });
    return out;
  }
}
