import type { Logger } from '@slipway/core';
import { caddyRequest, SerialQueue, Watchdog } from './caddy-admin';

const SERVER = 'slipway-mesh';
const TAG = 'slipway-mesh';

export interface MeshSettings {
  /** The listener other servers' ingress proxies this server's apps to (TLS). */
  port: number;
  /** This server's agent certificate and key (issued by the platform's CA at enrollment), PEM. */
  certPem: string;
  keyPem: string;
  /**
   * With HAProxy in front (decision 0040): the socket of its `own` frontend (this server's own apps from the map, 404
   * for any other host), where the mesh listener sends every host after this server's custom domains.
   */
  ownSocket?: string;
}

type CaddyObject = Record<string, unknown>;

/** Last on the mesh listener: a host this server does not serve is 404 (Caddy would answer an empty 200). */
const FALLBACK: CaddyObject = {
  handle: [{ handler: 'static_response', status_code: 404, headers: { 'Content-Type': ['text/plain; charset=utf-8'] }, body: 'No app of this server is served at this address.\n' }],
};

/**
 * The mesh listener of this server (issue 31, docs/decisions/0032-one-url-whichever-server.md): a Caddy server of its
 * own on `port`, TLS with this server's agent certificate (the platform's CA signed it for `<node>.agent.slipway`),
 * whose routes are a copy of this server's own app routes (never the other servers': a request that crossed once is
 * never forwarded again, so servers that disagree cannot loop; and no second hop through the ingress). Other servers' ingress
 * proxies the hosts of this server's apps here, checking the certificate against the platform's CA. The certificate
 * goes into Caddy's config inline (`load_pem`), so no file outlives the agent. A watchdog puts it back when Caddy lost
 * it (restarted with its bootstrap config).
 */
export class MeshListener {
  /** One change of the mesh at a time: the watchdog, the app routes' changes and the custom domains' (below). */
  private readonly queue = new SerialQueue();
  private readonly watchdog = new Watchdog(
    () => this.ensure(),
    (e) => this.logger.debug({ err: e.message }, 'mesh listener not in place yet'),
  );

  constructor(
    private readonly adminUrl: string,
    private readonly settings: MeshSettings,
    private readonly logger: Logger,
  ) {}

  watch(intervalMs = 2_000): void {
    this.watchdog.start(intervalMs);
  }

  stop(): void {
    this.watchdog.stop();
  }

  /** Puts the certificate and the mesh server into Caddy when either is missing or stale. */
  ensure(): Promise<void> {
    return this.queue.run(() => this.apply());
  }

  /**
   * Runs `change` (CustomDomains writing `domainRoutes`, its next routes of the HTTPS server) with the mesh's copy of
   * them made first, nothing else changing the mesh in between. A new custom domain's route is what makes Caddy order
   * its certificate, and any later reload of Caddy's config cancels that order in flight (Caddy 2.6): a reload after
   * the CA issued the certificate but before Caddy stored it makes Caddy order a second one. Copied after the route
   * (the watchdog's next tick, 0–2 s later), the mesh's own reload landed right on the owner's order.
   */
  withDomainRoutes(domainRoutes: Record<string, unknown>[], change: () => Promise<void>): Promise<void> {
    return this.queue.run(async () => {
      await this.apply(domainRoutes).catch((e: Error) => this.logger.debug({ err: e.message }, 'mesh listener not in line with the custom domains yet'));
      await change();
    });
  }

  private async apply(domainRoutes?: CaddyObject[]): Promise<void> {
    const own = await this.ownRoutes(domainRoutes);
    const certificates = await this.request<{ certificate: string; key: string; tags?: string[] }[]>('GET', '/config/apps/tls/certificates/load_pem').catch(() => null);
    const mine = certificates?.find((c) => c.tags?.includes(TAG));
    if (!mine || mine.certificate !== this.settings.certPem) {
      const others = (certificates ?? []).filter((c) => !c.tags?.includes(TAG));
      const loaded = [...others, { certificate: this.settings.certPem, key: this.settings.keyPem, tags: [TAG] }];
      await this.putPath(['apps', 'tls', 'certificates', 'load_pem'], loaded);
    }
    const server = await this.request<CaddyObject>('GET', `/config/apps/http/servers/${SERVER}`).catch(() => null);
    const wanted = this.server(own);
    if (!server || JSON.stringify(server.listen) !== JSON.stringify(wanted.listen)) {
      await this.putPath(['apps', 'http', 'servers', SERVER], wanted);
      this.logger.info({ port: this.settings.port, routes: own.length }, 'mesh listener in place');
    } else if (JSON.stringify(server.routes ?? []) !== JSON.stringify(own)) {
      await this.request('PATCH', `/config/apps/http/servers/${SERVER}/routes`, own);
    }
  }

  private server(routes: CaddyObject[]): CaddyObject {
    return {
      listen: [`:${this.settings.port}`],
      routes,
      tls_connection_policies: [{ certificate_selection: { any_tag: [TAG] } }],
      automatic_https: { disable: true },
    };
  }

  /**
   * This server's own app routes (`app-<id>` of the ingress server) and its own custom domains' routes
   * (`domains-app-<id>` of the HTTPS server, or of `domainRoutes`, the routes it is about to have: other servers
   * proxy those hostnames here too, issue 31), without their ids (an id is unique in Caddy).
   */
  private async ownRoutes(domainRoutes?: CaddyObject[]): Promise<CaddyObject[]> {
    const routes = (await this.request<CaddyObject[]>('GET', '/config/apps/http/servers/ingress/routes')) ?? [];
    const domains = domainRoutes ?? (await this.request<CaddyObject[]>('GET', '/config/apps/http/servers/slipway-https/routes').catch(() => null)) ?? [];
    const own = [...routes.filter((r) => String(r['@id'] ?? '').startsWith('app-')), ...domains.filter((r) => String(r['@id'] ?? '').startsWith('domains-app-'))];
    const rest = this.settings.ownSocket ? [{ handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `unix/${this.settings.ownSocket}` }] }] }] : [FALLBACK];
    return [...own.map(({ '@id': _id, ...route }) => route), ...rest];
  }

  /** PUT at a config path, creating the objects above it that are missing (Caddy refuses a path whose parent is absent). */
  private async putPath(segments: string[], value: unknown): Promise<void> {
    for (let i = 1; i < segments.length; i++) {
      const parent = `/config/${segments.slice(0, i).join('/')}`;
      const have = await this.request('GET', parent).catch(() => null);
      if (have === null) await this.request('PUT', parent, {}).catch(() => undefined);
    }
    const at = `/config/${segments.join('/')}`;
    const have = await this.request('GET', at).catch(() => null);
    await this.request(have === null ? 'PUT' : 'PATCH', at, value);
  }

  private async request<T = unknown>(method: string, p: string, body?: unknown): Promise<T | null> {
    const res = await caddyRequest<T>(this.adminUrl, method, p, body, 10_000);
    if (res.status >= 400) throw new Error(`Caddy answered ${res.status} to ${method} ${p}: ${res.text.trim()}`);
    return res.json;
  }
}
