import type { AgentTarget } from '../ports/agents';

export type DomainStatusValue = 'pending' | 'verified' | 'failed';

/** What the app's server saw for a hostname (DomainsGateway.checkDomain). */
export interface DnsObservation {
  a: string[];
  aaaa: string[];
  /** Every TXT value at `_svc.<hostname>` (strings of one record joined). */
  txt: string[];
  /** The CNAME chain from the hostname, in order (empty: none). */
  cnames: string[];
  /** A lookup that failed for another reason than "no such record" (timeout, SERVFAIL, refused), in words. */
  error: string | null;
}

export interface StoredCheck {
  a: string[];
  aaaa: string[];
  txt: boolean;
  cname: string | null;
  at: string;
  error: string | null;
}

export interface CertificateState {
  status: 'none' | 'pending' | 'issued' | 'failed';
  issuer: string | null;
  notAfter: string | null;
  error: string | null;
}

export interface DomainRecord {
  id: string;
  workspaceId: string;
  appId: string;
  hostname: string;
  status: DomainStatusValue;
  txtValue: string;
  check: StoredCheck | null;
  failures: number;
  pendingUntil: Date;
  nextCheckAt: Date | null;
  verifiedAt: Date | null;
  certificate: CertificateState | null;
  createdAt: Date;
}

/** A domain with what checking and routing it needs: its app and the server the app's workspace is placed on. */
export interface DomainContext extends DomainRecord {
  app: { kind: string; subdomain: string | null; deleted: boolean; desiredState: string };
  node: { id: string; name: string; grpcAddress: string; publicIpv4: string[] } | null;
}

export interface DomainChanges {
  status?: DomainStatusValue;
  check?: StoredCheck;
  failures?: number;
  nextCheckAt?: Date | null;
  verifiedAt?: Date | null;
  certificate?: CertificateState | null;
}

/** Request side: every method takes the workspace. */
export interface DomainRepository {
  /** 'domain_taken' when the hostname is held by a domain of a live app anywhere (one of a deleted app is removed first). */
  create(input: { workspaceId: string; appId: string; hostname: string; txtValue: string; pendingUntil: Date; nextCheckAt: Date; maxPerApp: number }): Promise<DomainRecord | 'domain_taken' | 'limit_reached'>;
  list(scope: { workspaceId: string; appId: string }): Promise<DomainRecord[]>;
  find(scope: { workspaceId: string; appId: string; domainId: string }): Promise<DomainContext | null>;
  update(scope: { workspaceId: string; domainId: string }, changes: DomainChanges): Promise<DomainRecord>;
  /** The removed row's server, or null when there was no such domain. */
  remove(scope: { workspaceId: string; appId: string; domainId: string }): Promise<{ nodeId: string | null } | null>;
  /** Removes every domain of a (deleted) app; the server they were on. */
  removeOfApp(scope: { workspaceId: string; appId: string }): Promise<{ nodeId: string | null; count: number }>;
  /** Verified domains of live web apps on the node: what its Caddy should route. */
  routedOnNode(nodeId: string): Promise<RoutedDomain[]>;
  node(nodeId: string): Promise<{ id: string; name: string; grpcAddress: string } | null>;
  /** Online servers: the ones serving ingress (every app's domains with a mesh, issue 31). */
  onlineNodes(): Promise<IngressNode[]>;
}

/** A server as the custom domains of several servers need it: where it is reached and what DNS should point at. */
export interface IngressNode {
  id: string;
  name: string;
  grpcAddress: string;
  publicIpv4: string[];
}

/** Job side: keyed by the domain id a job holds. */
export interface DomainJobStore {
  get(domainId: string): Promise<DomainContext | null>;
  update(domainId: string, changes: DomainChanges): Promise<DomainRecord>;
  /** Ids of domains whose next check is due at `now` (oldest first). */
  due(now: Date, limit: number): Promise<string[]>;
  /** Domains of deleted apps (removed by the sweep); the servers they were on. */
  removeOfDeletedApps(): Promise<string[]>;
  routedOnNode(nodeId: string): Promise<RoutedDomain[]>;
  /** Online servers: the ones serving ingress (every app's domains with a mesh, issue 31). */
  onlineNodes(): Promise<IngressNode[]>;
  /** Verified domains on the node (to refresh their certificate state). */
  verifiedOnNode(nodeId: string): Promise<DomainRecord[]>;
}

/** A route the server's Caddy should hold for a verified domain. */
export interface RoutedDomain {
  domainId: string;
  appId: string;
  hostname: string;
}

/**
 * Another server's verified domain, routed by this server to its owner (issue 31,
 * docs/decisions/0034-custom-domains-across-servers.md): HTTPS proxied to the owner's mesh listener with the certificate
 * the owner obtained (null: keep the one already loaded), HTTP-01 challenges forwarded to the owner's ingress.
 */
export interface RemoteDomain extends RoutedDomain {
  ownerAddress: string;
  ownerName: string;
  challengeAddress: string;
  certificate: IssuedCertificate | null;
}

/** A certificate chain and its key as a server's Caddy obtained them (PEM). */
export interface IssuedCertificate {
  certificatePem: string;
  keyPem: string;
}

/** What the domains feature needs of the agents (domains.proto). */
export interface DomainsGateway {
  /** Resolves the hostname with the server's resolvers (the configured list, or the system's). */
  checkDomain(target: AgentTarget, input: { hostname: string; txtName: string }): Promise<DnsObservation>;
  /** Makes the server's custom-domain routes and TLS policies exactly `domains` (and `remote`: other servers' domains). */
  syncDomains(target: AgentTarget, domains: RoutedDomain[], remote?: RemoteDomain[]): Promise<{ added: number; removed: number }>;
  /** The certificate each hostname is served with now (or why there is none). */
  certificates(target: AgentTarget, hostnames: string[]): Promise<Map<string, CertificateState>>;
  /** The chain and key of each hostname's certificate the server obtained (hostnames without one are absent). */
  issuedCertificates(target: AgentTarget, hostnames: string[]): Promise<Map<string, IssuedCertificate>>;
}

/**
 * A custom domain's certificate as a server's Caddy stores it (certmagic's entry: chain, key and metadata under its
 * issuer's folder): what a workspace move carries from the old owner to the new one (issue 32,
 * docs/decisions/0037-drain-and-moves.md), so the new owner serves and renews the same certificate.
 */
export interface StoredCertificate {
  hostname: string;
  issuerKey: string;
  certificatePem: string;
  keyPem: string;
  metaJson: string;
}

/** The servers' certificate storage of custom domains (domains.proto ExportCertificates / ImportCertificates / RemoveCertificates). */
export interface DomainCertificateStorage {
  /** The stored entries of those hostnames (those without one are absent). */
  exportCertificates(target: AgentTarget, hostnames: string[]): Promise<StoredCertificate[]>;
  /** Written into the server's storage, where its Caddy looks before ordering one. */
  importCertificates(target: AgentTarget, certificates: StoredCertificate[]): Promise<{ stored: number }>;
  /** Removed from the server's storage, but those of hostnames it owns now (`kept`). */
  removeCertificates(target: AgentTarget, hostnames: string[]): Promise<{ removed: number; kept: string[] }>;
}
