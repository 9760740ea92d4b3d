import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import type { Logger } from '@slipway/core';
import { agentTlsName } from '@slipway/pki';
import { caddyRequest, loadJson, saveJson, SerialQueue, Watchdog } from './caddy-admin';
import { readStoredCertificates, removeStoredCertificates, writeStoredCertificates, type StoredCertificate } from './cert-storage';
import type { CaddyIngress } from './caddy.ingress';

/** A custom domain this server routes (SyncDomains). */
export interface CustomDomain {
  domainId: string;
  appId: string;
  hostname: string;
}

/**
 * Another server's custom domain this server routes (issue 31, docs/decisions/0034-custom-domains-across-servers.md):
 * HTTPS proxied to the owner's mesh listener, HTTP-01 challenges forwarded to the owner's ingress, served with the
 * certificate the owner obtained (never ordered here).
 */
export interface RemoteCustomDomain extends CustomDomain {
  ownerAddress: string;
  ownerName: string;
  challengeAddress: string;
}

/** The mesh listener's copy of this server's own custom-domain routes (mesh.ts): made first, then `change` runs. */
export interface DomainRoutesCopy {
  withDomainRoutes(routes: Record<string, unknown>[], change: () => Promise<void>): Promise<void>;
}

/** A certificate chain and its key (PEM). */
export interface PemPair {
  certificatePem: string;
  keyPem: string;
}

/** Where certificates come from: an ACME directory (Let's Encrypt by default) or Caddy's own CA (`internal`). */
export interface AcmeSettings {
  /** An ACME directory URL, or `internal`. */
  directory: string;
  email: string | null;
  /** PEM file of an extra root Caddy trusts when talking to the directory (a private CA such as Pebble). */
  trustedRootFile: string | null;
}

export interface CustomDomainSettings {
  acme: AcmeSettings;
  /** Caddy's HTTPS listener for custom domains (`:443`). */
  httpsPort: number;
  /** Resolvers of the DNS check (`host` or `host:port`); empty: the system's. */
  resolvers: string[];
}

export const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';
export const DEFAULT_DOMAIN_SETTINGS: CustomDomainSettings = { acme: { directory: LETS_ENCRYPT, email: null, trustedRootFile: null }, httpsPort: 443, resolvers: [] };

/** The Caddy server of custom domains: TLS on its listener, certificates managed for the hosts of its routes. */
const HTTPS_SERVER = 'slipway-https';
const HTTPS_ROUTES = `/config/apps/http/servers/${HTTPS_SERVER}/routes`;
const INGRESS_SERVER = '/config/apps/http/servers/ingress';
const INGRESS_ROUTES = `${INGRESS_SERVER}/routes`;
const POLICIES = '/config/apps/tls/automation/policies';
const routeId = (appId: string) => `domains-app-${appId}`;
const remoteRouteId = (appId: string) => `domains-remote-${appId}`;
const CHALLENGE_PATH = '/.well-known/acme-challenge/*';
/** The last route of the HTTPS server with HAProxy in front: a host no route takes is told so. */
const HTTPS_FALLBACK: CaddyObject = {
  '@id': 'slipway-https-fallback',
  handle: [{ handler: 'static_response', status_code: 404, headers: { 'Content-Type': ['text/plain; charset=utf-8'] }, body: 'No app is served at this address.\n' }],
};
/** The path of Caddy's `on_demand.ask` requests (HAProxy design): answered 200 by an agent's route for its own hostnames. */
export const ASK_PATH = '/.slipway/ask';
/** The file of a hostname in an agent's hosts folder (the HAProxy design's table of its own domains, read by Caddy). */
const hostFile = (hostname: string) => `${hostname}.host`;

interface CaddyObject {
  '@id'?: string;
  [key: string]: unknown;
}

/**
 * The custom domains of this server in Caddy, under ids this agent owns (`<key>`: a hash of its data dir):
 * - `domains-app-<appId>` in the `slipway-https` server (listening on the HTTPS port, TLS): the app's hostnames → its
 *   current upstream (the one its app route `app-<appId>` dials). No app route (stopped, not deployed): no such route.
 * - `domains-tls-<key>` in `apps.tls.automation.policies`: certificates of every hostname from the configured issuer
 *   (ACME with HTTP-01 only; Caddy answers the challenge on the ingress port before any route), or Caddy's own CA.
 * - `domains-redirect-<key>` in front of the `ingress` server's routes: every routed hostname → 308 to HTTPS.
 * One object per app or per agent rather than per domain: every change reloads Caddy's whole config, so its size is
 * what a change costs.
 * Other servers' and other agents' config is never touched. The wanted set is kept in `<dataDir>/domains.json`; the
 * app routes' changes (rollouts, start, stop) are followed at once (CaddyIngress's listener) and a watchdog puts back
 * what Caddy lost. Issuance errors are read from a Caddy log of TLS events this agent adds (`<dataDir>/caddy-tls.log`).
 */
export class CustomDomains {
  private readonly wanted = new Map<string, CustomDomain>();
  /** Other servers' domains (issue 31) and the certificates their owners obtained, by hostname. */
  private readonly remote = new Map<string, RemoteCustomDomain>();
  private readonly remoteCerts = new Map<string, PemPair>();
  private readonly owned = new Set<string>();
  private readonly queue = new SerialQueue();
  private readonly watchdog = new Watchdog(
    () => this.serial(() => this.reconcile()),
    (e) => this.logger.debug({ err: e.message }, 'custom-domain reconciliation skipped'),
  );
  private readonly key: string;
  readonly tlsLog: string;
  /**
   * The storage of the certificates this server obtains for its own domains (the TLS policy's `storage`): the agent
   * reads their chain and key there for the control plane to hand to the other servers (issue 31).
   */
  readonly certDir: string;
  /**
   * With HAProxy in front (decision 0040 step 4): one empty file per own routed hostname (`<hostname>.host`), what
   * Caddy's routes of this agent read per request (`file` matcher) and its `on_demand.ask` is answered from, so that
   * adding or removing a domain changes no Caddy config.
   */
  readonly hostsDir: string;
  /** Hostnames whose certificate this agent asked Caddy for (a TLS handshake), and when: tried again after a minute. */
  private readonly triggered = new Map<string, number>();

  constructor(
    private readonly adminUrl: string,
    private readonly file: string,
    private readonly ingress: CaddyIngress,
    readonly settings: CustomDomainSettings,
    private readonly logger: Logger,
    /** The mesh listener (issue 31): it copies this server's custom-domain routes, just before they change. */
    private readonly mesh: DomainRoutesCopy | null = null,
  ) {
    this.key = createHash('sha256').update(file).digest('hex').slice(0, 12);
    this.tlsLog = path.join(path.dirname(file), 'caddy-tls.log');
    this.certDir = path.join(path.dirname(file), 'caddy-certs');
    this.hostsDir = path.join(path.dirname(file), 'domain-hosts');
    ingress.onChange(() => {
      const run = this.serial(() => this.reconcile()).then(() => undefined);
      // With HAProxy a domain follows its app's route by itself (its map entry names the app's host): the change does
      // not wait for this reconciliation (which changes the map through the ingress's own queue) but for stops/starts.
      if (!this.ingress.haproxyOwnSocket()) return run;
      run.catch((e: Error) => this.logger.debug({ err: e.message }, 'custom domains not in line with the app routes yet (the watchdog retries)'));
      return Promise.resolve();
    });
  }

  private get redirectId(): string {
    return `domains-redirect-${this.key}`;
  }

  private get policyId(): string {
    return `domains-tls-${this.key}`;
  }

  async load(): Promise<this> {
    const saved = await loadJson<{ domains: CustomDomain[]; owned: string[]; remote?: RemoteCustomDomain[]; certificates?: [string, PemPair][] }>(this.file);
    if (saved === undefined) return this;
    for (const d of saved.domains) this.wanted.set(d.domainId, d);
    for (const d of saved.remote ?? []) this.remote.set(d.domainId, d);
    for (const [host, pem] of saved.certificates ?? []) this.remoteCerts.set(host, pem);
    for (const id of saved.owned) this.owned.add(id);
    return this;
  }

  domains(): CustomDomain[] {
    return [...this.wanted.values()];
  }

  remoteDomains(): RemoteCustomDomain[] {
    return [...this.remote.values()];
  }

  /**
   * The chain and key Caddy obtained for one of this server's own hostnames, read from the TLS policy's storage
   * (`<certDir>/certificates/<issuer>/<host>/<host>.crt|.key`); null when there is none.
   */
  async issued(hostname: string): Promise<PemPair | null> {
    const host = hostname.toLowerCase();
    const root = path.join(this.certDir, 'certificates');
    const issuers = await readdir(root).catch(() => [] as string[]);
    for (const issuer of issuers.sort()) {
      const dir = path.join(root, issuer, host);
      const pair = await Promise.all([readFile(path.join(dir, `${host}.crt`), 'utf8'), readFile(path.join(dir, `${host}.key`), 'utf8')]).catch(() => null);
      if (pair) return { certificatePem: pair[0], keyPem: pair[1] };
    }
    return null;
  }

  /** The stored certificates (Caddy's storage entries) of those hostnames: what a workspace move carries (issue 32). */
  storedCertificates(hostnames: string[]): Promise<StoredCertificate[]> {
    return readStoredCertificates(this.certDir, hostnames);
  }

  /**
   * Entries written into this server's storage, where Caddy looks before it orders a certificate for a hostname it
   * manages: once this server owns the hostname it serves and renews that certificate (issue 32). Serial with the
   * reconciliations: written before any later one names the hostname in a policy.
   */
  storeCertificates(entries: StoredCertificate[]): Promise<number> {
    return this.serial(() => writeStoredCertificates(this.certDir, entries));
  }

  /** The stored certificates of those hostnames removed, but those of the hostnames this server owns now. */
  removeCertificates(hostnames: string[]): Promise<{ removed: number; kept: string[] }> {
    return this.serial(async () => {
      const own = new Set([...this.wanted.values()].map((d) => d.hostname));
      const kept = hostnames.filter((h) => own.has(h.toLowerCase()));
      return { removed: await removeStoredCertificates(this.certDir, hostnames.filter((h) => !own.has(h.toLowerCase()))), kept };
    });
  }

  /**
   * Makes the wanted set exactly `domains` and `remote` (other servers' domains; a remote one without a certificate
   * keeps the one already loaded for its hostname), then brings Caddy in line.
   */
  sync(domains: CustomDomain[], remote: (RemoteCustomDomain & Partial<PemPair>)[] = []): Promise<{ added: number; removed: number }> {
    return this.serial(async () => {
      const wasOwn = new Set([...this.wanted.values()].map((d) => d.hostname));
      this.wanted.clear();
      for (const d of domains) this.wanted.set(d.domainId, { domainId: d.domainId, appId: d.appId, hostname: d.hostname.toLowerCase() });
      this.remote.clear();
      for (const d of remote) {
        const hostname = d.hostname.toLowerCase();
        if ([...this.wanted.values()].some((w) => w.hostname === hostname)) continue; // its own: served and certified here
        this.remote.set(d.domainId, { domainId: d.domainId, appId: d.appId, hostname, ownerAddress: d.ownerAddress, ownerName: d.ownerName, challengeAddress: d.challengeAddress });
        if (d.certificatePem && d.keyPem) this.remoteCerts.set(hostname, { certificatePem: d.certificatePem, keyPem: d.keyPem });
        else if (wasOwn.has(hostname) && !this.remoteCerts.has(hostname)) {
          // This server owned it until now (its workspace moved away, issue 32): the certificate it obtained, which
          // the new owner now serves too, is served here until the sweep relays the new owner's.
          const own = await this.issued(hostname);
          if (own) this.remoteCerts.set(hostname, own);
        }
      }
      const remoteHosts = new Set([...this.remote.values()].map((d) => d.hostname));
      for (const host of [...this.remoteCerts.keys()]) if (!remoteHosts.has(host)) this.remoteCerts.delete(host);
      await this.save();
      // Caddy may refuse a change while it loads another (a shared Caddy): tried again shortly, 3 times in all.
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.reconcile();
        } catch (e) {
          if (attempt >= 3) throw e;
          this.logger.debug({ err: (e as Error).message, attempt }, 'custom-domain change refused, trying again');
          await new Promise((r) => setTimeout(r, 250 * attempt));
        }
      }
    });
  }

  watch(intervalMs = 2_000): void {
    this.watchdog.start(intervalMs);
  }

  stop(): void {
    this.watchdog.stop();
  }

  /**
   * The certificate Caddy serves each hostname now: a TLS handshake with that SNI on the HTTPS listener. None served:
   * `failed` with Caddy's last issuance error for the name when there is one, else `pending`.
   */
  async certificates(
    hostnames: string[],
    o: { withKeys?: boolean } = {},
  ): Promise<({ hostname: string; status: string; issuer: string; notAfterMs: number; error: string } & Partial<PemPair>)[]> {
    const errors = await this.issuanceErrors();
    return Promise.all(
      hostnames.map(async (hostname) => {
        const name = hostname.toLowerCase();
        if (![...this.wanted.values()].some((d) => d.hostname === name)) return { hostname, status: 'none', issuer: '', notAfterMs: 0, error: '' };
        const cert = await this.served(name);
        if (cert && o.withKeys) return { hostname, status: 'issued', issuer: cert.issuer, notAfterMs: cert.notAfterMs, error: '', ...((await this.issued(name)) ?? {}) };
        if (cert) return { hostname, status: 'issued', issuer: cert.issuer, notAfterMs: cert.notAfterMs, error: '' };
        const error = errors.get(name);
        return { hostname, status: error ? 'failed' : 'pending', issuer: '', notAfterMs: 0, error: error ?? '' };
      }),
    );
  }

  private served(hostname: string, timeoutMs = 3_000): Promise<{ issuer: string; notAfterMs: number } | null> {
    return new Promise((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: this.settings.httpsPort, servername: hostname, rejectUnauthorized: false, timeout: timeoutMs }, () => {
        const peer = socket.getPeerCertificate();
        socket.end();
        const names = (peer.subjectaltname ?? '').split(',').map((s) => s.trim().replace(/^DNS:/, '').toLowerCase());
        if (!peer.valid_to || !names.includes(hostname)) return resolve(null);
        const issuer = peer.issuer as unknown as Record<string, string | string[]> | undefined;
        const cn = issuer?.CN ?? issuer?.O ?? '';
        resolve({ issuer: Array.isArray(cn) ? cn.join(', ') : cn, notAfterMs: new Date(peer.valid_to).getTime() });
      });
      socket.on('error', () => resolve(null));
      socket.on('timeout', () => {
        socket.destroy();
        resolve(null);
      });
    });
  }

  /** The last issuance error Caddy logged for each hostname since its last success (read from the end of the log). */
  private async issuanceErrors(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let text = '';
    try {
      const fh = await open(this.tlsLog, 'r');
      try {
        const { size } = await fh.stat();
        const length = Math.min(size, 512 * 1024);
        const buf = Buffer.alloc(length);
        await fh.read(buf, 0, length, size - length);
        text = buf.toString('utf8');
      } finally {
        await fh.close();
      }
    } catch {
      return out;
    }
    for (const line of text.split('\n')) {
      let entry: { level?: string; msg?: string; identifier?: string; error?: string; identifiers?: string[] };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      const names = entry.identifier ? [entry.identifier] : (entry.identifiers ?? []);
      for (const n of names.map((x) => x.toLowerCase())) {
        if (entry.msg === 'certificate obtained successfully') out.delete(n);
        else if (entry.level === 'error' && entry.error) out.set(n, `${entry.msg ?? 'issuance failed'}: ${entry.error}`);
      }
    }
    return out;
  }

  private issuer(): Record<string, unknown> {
    const a = this.settings.acme;
    if (a.directory === 'internal') return { module: 'internal' };
    return {
      module: 'acme',
      ca: a.directory,
      ...(a.email ? { email: a.email } : {}),
      ...(a.trustedRootFile ? { trusted_roots_pem_files: [a.trustedRootFile] } : {}),
      // HTTP-01 only: Caddy answers it on the ingress port, which every server has; TLS-ALPN would need the HTTPS port
      // reachable from the CA on the standard port.
      challenges: { 'tls-alpn': { disabled: true } },
    };
  }

  private async reconcile(): Promise<{ added: number; removed: number }> {
    const upstreams = new Map(this.ingress.routes().map((r) => [r.appId, r.upstreamPort]));
    const domains = [...this.wanted.values()];
    const routed = domains.filter((d) => upstreams.has(d.appId));
    // Other servers' domains need the platform's CA to check their owner's mesh certificate: without it, none.
    const meshCa = this.ingress.meshTrust();
    const remote = meshCa ? [...this.remote.values()] : [];
    // HAProxy in front (decision 0040 step 4): this server's own domains are a table (map entries, files) and Caddy
    // holds only objects of this agent whose content does not depend on them; else each is in Caddy's config.
    const ownSocket = this.ingress.haproxyOwnSocket();
    const table = ownSocket !== null;
    const appHosts = new Map(table ? this.ingress.routes().map((r) => [r.appId, r.host.toLowerCase()]) : []);
    // Leaving names first: no file, so neither Caddy's ask nor its routes take them any more.
    if (table) await this.syncHostFiles(new Set(routed.map((d) => d.hostname)), 'remove');
    if (domains.length === 0 && remote.length === 0 && this.owned.size === 0) {
      if (table) await this.ingress.setDomainEntries(new Map());
      return { added: 0, removed: 0 };
    }
    let added = 0;
    let removed = 0;

    // The order of the writes matters (Caddy 2.6): a hostname in a route of the HTTPS server is what makes Caddy manage
    // its certificate, with the policy naming it or, none naming it and not skipped, Let's Encrypt's; and every reload
    // of the config cancels an order in flight, so a reload after the CA issued the certificate and before Caddy stored
    // it makes Caddy order a second one. So the routes' hostnames only shrink before the policies and the skip list
    // change, and only grow after them, in the last write of all (the mesh's copy of them just before): the order a new
    // domain starts is not cut short by this agent's own next writes.
    const server = await this.request<CaddyObject>('GET', `/config/apps/http/servers/${HTTPS_SERVER}`);
    const serving = routed.length + remote.length > 0;
    const routes = server ? (((await this.request<CaddyObject[]>('GET', HTTPS_ROUTES)) ?? []) as CaddyObject[]) : [];
    // One route per app: its hostnames → its current upstream.
    const byApp = new Map<string, string[]>();
    for (const d of routed) byApp.set(d.appId, [...(byApp.get(d.appId) ?? []), d.hostname]);
    const wantRoutes = new Map(
      [...(table ? [] : byApp)].map(([appId, hosts]) => [
        routeId(appId),
        {
          '@id': routeId(appId),
          match: [{ host: hosts.sort() }],
          handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `127.0.0.1:${upstreams.get(appId)}` }] }],
          terminal: true,
        },
      ]),
    );
    // Other servers' apps: their hostnames → the owner's mesh listener over TLS, checked against the platform's CA.
    const remoteByApp = new Map<string, RemoteCustomDomain[]>();
    for (const d of remote) remoteByApp.set(d.appId, [...(remoteByApp.get(d.appId) ?? []), d]);
    const wantRemote = new Map(
      [...remoteByApp].map(([appId, ds]) => [
        remoteRouteId(appId),
        {
          '@id': remoteRouteId(appId),
          match: [{ host: ds.map((d) => d.hostname).sort() }],
          handle: [
            {
              handler: 'reverse_proxy',
              upstreams: [{ dial: ds[0]!.ownerAddress }],
              transport: { protocol: 'http', tls: { root_ca_pool: [meshCa], server_name: agentTlsName(ds[0]!.ownerName) } },
            },
          ],
          terminal: true,
        },
      ]),
    );
    // HAProxy design: one route for all of this agent's own hostnames, read per request from its hosts folder, to HAProxy's
    // `own` frontend (the hostname's map entry → its app's host → its upstream, as for the app's own host).
    const wantHosts = new Map<string, CaddyObject>(
      table && routed.length
        ? [[this.hostsRouteId, { '@id': this.hostsRouteId, match: [{ file: this.hostsMatcher('{http.request.host}') }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `unix/${ownSocket}` }] }], terminal: true }]]
        : [],
    );
    const hostsRoutes = mergeOwned(routes, wantHosts, this.owned, 'domains-hosts-', (id) => id === this.hostsRouteId);
    const nextRoutes = mergeOwned(hostsRoutes.list, wantRoutes, this.owned, 'domains-app-');
    nextRoutes.changed ||= hostsRoutes.changed;
    nextRoutes.added += hostsRoutes.added;
    nextRoutes.removed += hostsRoutes.removed;
    const next = mergeOwned(nextRoutes.list, wantRemote, this.owned, 'domains-remote-');
    // HAProxy design: a name whose certificate Caddy still holds but no route takes any more (removed, its app stopped)
    // gets a 404, not Caddy's empty 200; the same route for every agent of a Caddy, last, never removed.
    if (table && (server || serving) && next.list.at(-1)?.['@id'] !== HTTPS_FALLBACK['@id']) {
      next.list = [...next.list.filter((r) => r['@id'] !== HTTPS_FALLBACK['@id']), HTTPS_FALLBACK];
      next.changed = true;
    }
    // First the hostnames that leave (routes removed, names taken out of a route): no policy or skip entry of theirs is
    // removed while a route still names them.
    const shrunk = shrinkOwned(routes, new Map([...wantRoutes, ...wantRemote]), this.owned, ['domains-app-', 'domains-remote-']);
    if (server && shrunk.changed) await this.request('PATCH', HTTPS_ROUTES, shrunk.list);

    // TLS policies: a route's host gets its certificate from the policy naming it.
    await this.ensureTlsApp();
    const policies = ((await this.request<CaddyObject[]>('GET', POLICIES)) ?? []) as CaddyObject[];
    // One policy for every hostname of this agent: a config of 500 domains stays small (each change reloads all of it).
    // Its storage is the agent's own folder: the agent reads the chain and key there for the other servers (issue 31).
    // HAProxy design: no subjects but `on_demand`, its `ask` answered from the hosts folder (below): the policy is the
    // same whatever the domains, and last (a policy without subjects takes every name no policy before it names).
    const policy = table
      ? { '@id': this.policyId, on_demand: true, issuers: [this.issuer()], storage: { module: 'file_system', root: this.certDir } }
      : { '@id': this.policyId, subjects: domains.map((d) => d.hostname).sort(), issuers: [this.issuer()], storage: { module: 'file_system', root: this.certDir } };
    const wantPolicies = new Map(domains.length ? [[this.policyId, policy]] : []);
    if (table && domains.length) await this.ensureAsk();
    const nextPolicies = mergeOwned(policies, wantPolicies, this.owned, 'domains-tls-');
    // Only policies without subjects (another agent's of a shared Caddy) may follow it: they would not take a name first.
    const ours = nextPolicies.list.findIndex((p) => p['@id'] === this.policyId);
    if (table && wantPolicies.size && nextPolicies.list.slice(ours + 1).some((p) => (p.subjects as unknown[] | undefined)?.length)) {
      nextPolicies.list = [...nextPolicies.list.filter((p) => p['@id'] !== this.policyId), policy];
      nextPolicies.changed = true;
    }
    if (nextPolicies.changed) {
      await this.request('PATCH', POLICIES, nextPolicies.list);
      added += nextPolicies.added;
      removed += nextPolicies.removed;
    }

    // Other servers' certificates, loaded as their owners obtained them (tagged: the mesh's own certificate and other
    // agents' entries are kept as they are).
    added += await this.loadRemoteCertificates(remote);

    // Other servers' hostnames are never certified here (`skip_certificates`): their owner's certificate is loaded
    // instead, so one ACME order serves every server.
    const skip = [...new Set(remote.map((d) => d.hostname))].sort();
    const automatic = { disable_redirects: true, ...(skip.length ? { skip_certificates: skip } : {}) };
    if (!server && serving) {
      await this.request('PUT', `/config/apps/http/servers/${HTTPS_SERVER}`, {
        listen: [`:${this.settings.httpsPort}`],
        routes: [],
        tls_connection_policies: [{}],
        automatic_https: automatic,
      });
    }
    if (server && !server.tls_connection_policies) {
      // A server made without them (by hand, an older agent): TLS on its listener whatever the port.
      await this.request('PUT', `/config/apps/http/servers/${HTTPS_SERVER}/tls_connection_policies`, [{}]).catch(ignoreExists);
    }
    if (server && JSON.stringify(canonical(server.automatic_https ?? {})) !== JSON.stringify(canonical(automatic))) {
      await this.request('PATCH', `/config/apps/http/servers/${HTTPS_SERVER}/automatic_https`, automatic).catch(async (e: Error) => {
        if (!/404|invalid traversal|unknown object/i.test(e.message)) throw e;
        await this.request('PUT', `/config/apps/http/servers/${HTTPS_SERVER}/automatic_https`, automatic);
      });
    }
    // The log of certificate events while there are domains (before the order starts: its errors are the reasons).
    if (domains.length) await this.ensureTlsLog().catch((e: Error) => this.logger.debug({ err: e.message }, 'the Caddy TLS log of custom domains not changed'));

    // Ingress (HTTP): other servers' HTTP-01 challenges forwarded to their owner (whose Caddy holds the order), one
    // route per owner; then one redirect route in front for every routed hostname, challenges excepted.
    let ingressRoutes = ((await this.request<CaddyObject[]>('GET', INGRESS_ROUTES)) ?? []) as CaddyObject[];
    const byOwner = new Map<string, RemoteCustomDomain[]>();
    for (const d of remote) byOwner.set(d.challengeAddress, [...(byOwner.get(d.challengeAddress) ?? []), d]);
    const wantChallenges = new Map<string, CaddyObject>(
      [...byOwner].map(([address, ds]) => {
        const id = `${this.challengePrefix}${createHash('sha256').update(address).digest('hex').slice(0, 8)}`;
        return [
          id,
          {
            '@id': id,
            match: [{ host: [...new Set(ds.map((d) => d.hostname))].sort(), path: [CHALLENGE_PATH] }],
            handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: address }] }],
            terminal: true,
          },
        ];
      }),
    );
    // HAProxy design: Caddy's `on_demand.ask` for this agent's hostnames, answered from its hosts folder.
    if (table && domains.length)
      wantChallenges.set(this.askRouteId, {
        '@id': this.askRouteId,
        match: [{ path: [ASK_PATH], file: this.hostsMatcher('{http.request.uri.query.domain}') }],
        handle: [{ handler: 'static_response', status_code: 200 }],
        terminal: true,
      });
    const challenges = mergeOwned(ingressRoutes, wantChallenges, this.owned, this.challengePrefix);
    if (challenges.changed) {
      await this.request('PATCH', INGRESS_ROUTES, challenges.list);
      ingressRoutes = challenges.list;
      added += challenges.added;
      removed += challenges.removed;
    }
    const have = ingressRoutes.find((r) => r['@id'] === this.redirectId);
    const port = this.settings.httpsPort === 443 ? '' : `:${this.settings.httpsPort}`;
    const redirected = [...new Set([...(table ? [] : routed.map((d) => d.hostname)), ...remote.map((d) => d.hostname)])].sort();
    const redirectMatch = [
      // HAProxy design: this agent's own hostnames from its hosts folder.
      ...(table && routed.length ? [{ file: this.hostsMatcher('{http.request.host}'), not: [{ path: [CHALLENGE_PATH] }] }] : []),
      ...(redirected.length ? [{ host: redirected, not: [{ path: [CHALLENGE_PATH] }] }] : []),
    ];
    const redirect = {
      '@id': this.redirectId,
      match: redirectMatch,
      handle: [{ handler: 'static_response', status_code: 308, headers: { Location: [`https://{http.request.host}${port}{http.request.uri}`] } }],
      terminal: true,
    };
    if (redirectMatch.length === 0 && have) {
      await this.request('DELETE', `/id/${this.redirectId}`);
    } else if (redirectMatch.length > 0 && !have) {
      await this.request('PUT', `${INGRESS_ROUTES}/0`, redirect);
    } else if (redirectMatch.length > 0 && have && JSON.stringify(canonical(have)) !== JSON.stringify(canonical(redirect))) {
      await this.request('PATCH', `/id/${this.redirectId}`, redirect);
    }

    // Last, the HTTPS routes as wanted (the hostnames that come start their order here), the mesh's copy of this
    // server's own ones made just before when there is a mesh listener.
    if ((server || serving) && (nextRoutes.changed || next.changed)) {
      const write = async () => void (await this.request('PATCH', HTTPS_ROUTES, next.list));
      await (this.mesh ? this.mesh.withDomainRoutes(next.list, write) : write());
      added += nextRoutes.added + next.added;
      removed += nextRoutes.removed + next.removed;
    }

    // HAProxy design, last: the names that come (map entries, then files: what Caddy's ask and routes read), and their
    // certificates asked for at once (a handshake starts Caddy's on-demand order) rather than at the first visitor.
    if (table) {
      const entries = new Map<string, string>();
      for (const d of routed) entries.set(d.hostname, appHosts.get(d.appId)!);
      const changed = await this.ingress.setDomainEntries(entries);
      added += changed.added;
      removed += changed.removed;
      added += await this.syncHostFiles(new Set(routed.map((d) => d.hostname)), 'add');
      await this.triggerIssuance(routed.map((d) => d.hostname));
    }

    this.owned.clear();
    const ownedNow = [
      ...wantPolicies.keys(),
      ...wantHosts.keys(),
      ...new Set(routed.filter(() => !table).map((d) => routeId(d.appId))),
      ...new Set(remote.map((d) => remoteRouteId(d.appId))),
      ...wantChallenges.keys(),
    ];
    for (const id of ownedNow) this.owned.add(id);
    await this.save();
    // No domains left: the log of certificate events leaves Caddy's config.
    if (!domains.length) await this.removeTlsLog().catch((e: Error) => this.logger.debug({ err: e.message }, 'the Caddy TLS log of custom domains not changed'));
    if (added || removed) this.logger.info({ added, removed, domains: domains.length, routed: routed.length, remote: remote.length }, 'custom domains reconciled');
    return { added, removed };
  }

  private get challengePrefix(): string {
    return `domains-acme-${this.key}-`;
  }

  private get askRouteId(): string {
    return `${this.challengePrefix}ask`;
  }

  private get hostsRouteId(): string {
    return `domains-hosts-${this.key}`;
  }

  /** Caddy's `file` matcher of a hostname (a placeholder) in this agent's hosts folder. */
  private hostsMatcher(placeholder: string): Record<string, unknown> {
    return { root: this.hostsDir, try_files: [hostFile(placeholder)] };
  }

  /**
   * The hosts folder made `wanted` (HAProxy design): `remove` takes the files of other names out, `add` writes the
   * missing ones; the number of files written.
   */
  private async syncHostFiles(wanted: Set<string>, step: 'add' | 'remove'): Promise<number> {
    await mkdir(this.hostsDir, { recursive: true, mode: 0o755 });
    const have = new Set((await readdir(this.hostsDir)).filter((f) => f.endsWith('.host')).map((f) => f.slice(0, -'.host'.length)));
    let written = 0;
    if (step === 'remove') {
      for (const host of have) if (!wanted.has(host)) await rm(path.join(this.hostsDir, hostFile(host)), { force: true });
      for (const host of [...this.triggered.keys()]) if (!wanted.has(host)) this.triggered.delete(host);
      return 0;
    }
    for (const host of wanted) {
      if (have.has(host)) continue;
      await writeFile(path.join(this.hostsDir, hostFile(host)), '', { mode: 0o644 });
      written++;
    }
    return written;
  }

  /**
   * Caddy's on-demand order of each hostname without a stored certificate started now (a TLS handshake with its name;
   * Caddy asks its `ask` route, then orders once — concurrent handshakes wait for the same order), at most once a
   * minute per name. Not awaited: an order takes seconds and the reconciliation does not wait for it.
   */
  private async triggerIssuance(hostnames: string[]): Promise<void> {
    const now = Date.now();
    for (const host of hostnames) {
      const at = this.triggered.get(host);
      if (at !== undefined && now - at < 60_000) continue;
      if (await this.issued(host)) continue;
      this.triggered.set(host, now);
      // Served with its name (issued, or a certificate loaded otherwise): not asked again.
      void this.served(host, 60_000).then((cert) => cert && this.triggered.set(host, Number.POSITIVE_INFINITY));
    }
  }

  /** Caddy's `on_demand.ask` (HAProxy design): its own ingress listener's ask path, where each agent's route answers. */
  private async ensureAsk(): Promise<void> {
    const listen = (await this.request<string[]>('GET', `${INGRESS_SERVER}/listen`)) ?? [];
    const port = /:(\d+)$/.exec(listen[0] ?? '')?.[1];
    if (!port) throw new Error(`Caddy's ingress server has no listener to answer on-demand TLS asks (${JSON.stringify(listen)})`);
    const ask = `http://127.0.0.1:${port}${ASK_PATH}`;
    const automation = await this.request<CaddyObject>('GET', '/config/apps/tls/automation');
    const current = automation?.on_demand as { ask?: string } | undefined;
    if (current?.ask === ask) return;
    if (current) await this.request('PATCH', '/config/apps/tls/automation/on_demand/ask', ask).catch(() => this.request('PUT', '/config/apps/tls/automation/on_demand/ask', ask));
    else await this.request('PUT', '/config/apps/tls/automation/on_demand', { ask });
  }

  private get certificateTag(): string {
    return `slipway-domains-${this.key}`;
  }

  /** Other servers' certificates in `load_pem`, tagged as this agent's; 1 when they changed. */
  private async loadRemoteCertificates(remote: RemoteCustomDomain[]): Promise<number> {
    const hosts = new Set(remote.map((d) => d.hostname));
    const want = [...this.remoteCerts].filter(([host]) => hosts.has(host)).sort(([a], [b]) => a.localeCompare(b));
    const current = ((await this.request<{ certificate: string; key: string; tags?: string[] }[]>('GET', '/config/apps/tls/certificates/load_pem')) ?? []) as {
      certificate: string;
      key: string;
      tags?: string[];
    }[];
    const mine = current.filter((c) => c.tags?.includes(this.certificateTag));
    const wanted = want.map(([, pem]) => ({ certificate: pem.certificatePem, key: pem.keyPem, tags: [this.certificateTag] }));
    if (JSON.stringify(mine.map((c) => c.certificate)) === JSON.stringify(wanted.map((c) => c.certificate))) return 0;
    const next = [...current.filter((c) => !c.tags?.includes(this.certificateTag)), ...wanted];
    const certificates = await this.request<CaddyObject>('GET', '/config/apps/tls/certificates');
    if (!certificates) await this.request('PUT', '/config/apps/tls/certificates', { load_pem: next });
    else if (!certificates.load_pem) await this.request('PUT', '/config/apps/tls/certificates/load_pem', next);
    else await this.request('PATCH', '/config/apps/tls/certificates/load_pem', next);
    return 1;
  }

  private async ensureTlsApp(): Promise<void> {
    const app = await this.request<CaddyObject>('GET', '/config/apps/tls');
    if (!app) await this.request('PUT', '/config/apps/tls', { automation: { policies: [] } }).catch(ignoreExists);
    else if (!(app.automation as CaddyObject | undefined)?.policies) {
      if (!app.automation) await this.request('PUT', '/config/apps/tls/automation', { policies: [] }).catch(ignoreExists);
      else await this.request('PUT', POLICIES, []).catch(ignoreExists);
    }
  }

  private get tlsLogName(): string {
    return `slipway-tls-${this.key}`;
  }

  private async removeTlsLog(): Promise<void> {
    const logs = await this.request<CaddyObject>('GET', '/config/logging/logs');
    if (logs?.[this.tlsLogName]) await this.request('DELETE', `/config/logging/logs/${this.tlsLogName}`);
  }

  /** A log of Caddy's certificate events for this agent (the reason of a failing issuance). */
  private async ensureTlsLog(): Promise<void> {
    const name = this.tlsLogName;
    const logging = await this.request<CaddyObject>('GET', '/config/logging');
    const log = { writer: { output: 'file', filename: this.tlsLog, roll: true, roll_size_mb: 10, roll_keep: 2 }, encoder: { format: 'json' }, include: ['tls.obtain', 'tls.issuance'] };
    if (!logging) await this.request('PUT', '/config/logging', { logs: { [name]: log } }).catch(ignoreExists);
    else if (!(logging.logs as CaddyObject | undefined)?.[name]) {
      if (!logging.logs) await this.request('PUT', '/config/logging/logs', { [name]: log }).catch(ignoreExists);
      else await this.request('PUT', `/config/logging/logs/${name}`, log).catch(ignoreExists);
    }
  }

  private save(): Promise<void> {
    // Other servers' keys are kept beside the agent's own (0600, in its 0700 data folder): restored after a restart.
    return saveJson(this.file, { domains: this.domains(), owned: [...this.owned], remote: this.remoteDomains(), certificates: [...this.remoteCerts] });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(work);
  }

  private async request<T = unknown>(method: string, p: string, body?: unknown): Promise<T | null> {
    const send = () => caddyRequest<T>(this.adminUrl, method, p, body, 30_000);
    // A connection Caddy closed as the request left (it reloads often) is tried once more on a new one.
    const res = await send().catch(async (e: Error) => {
      if (!/socket hang up|ECONNRESET/i.test(e.message)) throw e;
      return send();
    });
    if (method === 'GET' && (res.status === 404 || (res.status === 400 && /invalid traversal|unknown object/i.test(res.text)))) return null;
    if (res.status >= 400) throw new Error(`Caddy answered ${res.status} to ${method} ${p}: ${res.text.trim()}`);
    return res.json;
  }
}

const ignoreExists = (e: Error) => {
  if (!/already exists|key already/i.test(e.message)) throw e;
};

/** Sorted keys: Caddy answers objects with its own key order. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)]));
  return v;
}

/**
 * `current` with this agent's entries made exactly `want`: entries of others kept in place, ours replaced when they
 * differ, missing ones added (in front, before any catch-all), ours no longer wanted removed.
 */
function mergeOwned(
  current: CaddyObject[],
  want: Map<string, CaddyObject>,
  owned: Set<string>,
  prefix: string,
  isOurs: (id: string) => boolean = () => true,
): { list: CaddyObject[]; changed: boolean; added: number; removed: number } {
  let added = 0;
  let removed = 0;
  const seen = new Set<string>();
  const list: CaddyObject[] = [];
  for (const entry of current) {
    const id = entry['@id'] ?? '';
    if (!id.startsWith(prefix) || !isOurs(id)) {
      list.push(entry);
      continue;
    }
    const w = want.get(id);
    if (w) {
      seen.add(id);
      if (JSON.stringify(canonical(entry)) !== JSON.stringify(canonical(w))) added++;
      list.push(w);
    } else if (owned.has(id)) {
      removed++;
    } else {
      list.push(entry);
    }
  }
  const missing = [...want.entries()].filter(([id]) => !seen.has(id)).map(([, w]) => w);
  added += missing.length;
  return { list: [...missing, ...list], changed: added + removed > 0, added, removed };
}

/**
 * `current` with only what leaves of this agent's entries (ids under `prefixes`) applied: the entries it owns and no
 * longer wants removed, and the hostnames a wanted entry no longer matches taken out of it (an entry left with none is
 * removed). Nothing is added or otherwise changed: the first of a reconciliation's writes to the HTTPS server.
 */
export function shrinkOwned(current: CaddyObject[], want: Map<string, CaddyObject>, owned: Set<string>, prefixes: string[]): { list: CaddyObject[]; changed: boolean } {
  const hostsOf = (entry: CaddyObject) => ((entry.match as { host?: string[] }[] | undefined)?.[0]?.host ?? []) as string[];
  let changed = false;
  const list: CaddyObject[] = [];
  for (const entry of current) {
    const id = entry['@id'] ?? '';
    if (!prefixes.some((p) => id.startsWith(p))) {
      list.push(entry);
      continue;
    }
    const w = want.get(id);
    if (!w) {
      if (owned.has(id)) changed = true;
      else list.push(entry);
      continue;
    }
    const keep = new Set(hostsOf(w));
    const hosts = hostsOf(entry);
    const left = hosts.filter((h) => keep.has(h));
    if (left.length === hosts.length) list.push(entry);
    else {
      changed = true;
      if (left.length) list.push({ ...entry, match: [{ ...(entry.match as Record<string, unknown>[])[0], host: left }] });
    }
  }
  return { list, changed };
}
