import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import type { Logger } from '@slipway/core';
import { caddyRequest, loadJson, saveJson, SerialQueue, Watchdog } from './caddy-admin';
import type { CaddyIngress } from './caddy.ingress';

/** A custom domain this server routes (SyncDomains). */
export interface CustomDomain {
  domainId: string;
  appId: string;
  hostname: string;
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
const INGRESS_ROUTES = '/config/apps/http/servers/ingress/routes';
const POLICIES = '/config/apps/tls/automation/policies';
const routeId = (appId: string) => `domains-app-${appId}`;

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
  private readonly owned = new Set<string>();
  private readonly queue = new SerialQueue();
  private readonly watchdog = new Watchdog(
    () => this.serial(() => this.reconcile()),
    (e) => this.logger.debug({ err: e.message }, 'custom-domain reconciliation skipped'),
  );
  private readonly key: string;
  readonly tlsLog: string;

  constructor(
    private readonly adminUrl: string,
    private readonly file: string,
    private readonly ingress: CaddyIngress,
    readonly settings: CustomDomainSettings,
    private readonly logger: Logger,
  ) {
    this.key = createHash('sha256').update(file).digest('hex').slice(0, 12);
    this.tlsLog = path.join(path.dirname(file), 'caddy-tls.log');
    ingress.onChange(() => this.serial(() => this.reconcile()).then(() => undefined));
  }

  private get redirectId(): string {
    return `domains-redirect-${this.key}`;
  }

  private get policyId(): string {
    return `domains-tls-${this.key}`;
  }

  async load(): Promise<this> {
    const saved = await loadJson<{ domains: CustomDomain[]; owned: string[] }>(this.file);
    if (saved === undefined) return this;
    for (const d of saved.domains) this.wanted.set(d.domainId, d);
    for (const id of saved.owned) this.owned.add(id);
    return this;
  }

  domains(): CustomDomain[] {
    return [...this.wanted.values()];
  }

  /** Makes the wanted set exactly `domains`, then brings Caddy in line. */
  sync(domains: CustomDomain[]): Promise<{ added: number; removed: number }> {
    return this.serial(async () => {
      this.wanted.clear();
      for (const d of domains) this.wanted.set(d.domainId, { domainId: d.domainId, appId: d.appId, hostname: d.hostname.toLowerCase() });
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
  async certificates(hostnames: string[]): Promise<{ hostname: string; status: string; issuer: string; notAfterMs: number; error: string }[]> {
    const errors = await this.issuanceErrors();
    return Promise.all(
      hostnames.map(async (hostname) => {
        const name = hostname.toLowerCase();
        if (![...this.wanted.values()].some((d) => d.hostname === name)) return { hostname, status: 'none', issuer: '', notAfterMs: 0, error: '' };
        const cert = await this.served(name);
        if (cert) return { hostname, status: 'issued', issuer: cert.issuer, notAfterMs: cert.notAfterMs, error: '' };
        const error = errors.get(name);
        return { hostname, status: error ? 'failed' : 'pending', issuer: '', notAfterMs: 0, error: error ?? '' };
      }),
    );
  }

  private served(hostname: string): Promise<{ issuer: string; notAfterMs: number } | null> {
    return new Promise((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: this.settings.httpsPort, servername: hostname, rejectUnauthorized: false, timeout: 3_000 }, () => {
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
    if (domains.length === 0 && this.owned.size === 0) return { added: 0, removed: 0 };
    let added = 0;
    let removed = 0;

    // TLS policies first: a route's host gets its certificate from the policy naming it.
    await this.ensureTlsApp();
    const policies = ((await this.request<CaddyObject[]>('GET', POLICIES)) ?? []) as CaddyObject[];
    // One policy for every hostname of this agent: a config of 500 domains stays small (each change reloads all of it).
    const wantPolicies = new Map(
      domains.length ? [[this.policyId, { '@id': this.policyId, subjects: domains.map((d) => d.hostname).sort(), issuers: [this.issuer()] }]] : [],
    );
    const nextPolicies = mergeOwned(policies, wantPolicies, this.owned, 'domains-tls-');
    if (nextPolicies.changed) {
      await this.request('PATCH', POLICIES, nextPolicies.list);
      added += nextPolicies.added;
      removed += nextPolicies.removed;
    }

    // HTTPS routes.
    const server = await this.request<CaddyObject>('GET', `/config/apps/http/servers/${HTTPS_SERVER}`);
    if (!server && routed.length > 0) {
      await this.request('PUT', `/config/apps/http/servers/${HTTPS_SERVER}`, {
        listen: [`:${this.settings.httpsPort}`],
        routes: [],
        tls_connection_policies: [{}],
        automatic_https: { disable_redirects: true },
      });
    }
    if (server && !server.tls_connection_policies) {
      // A server made without them (by hand, an older agent): TLS on its listener whatever the port.
      await this.request('PUT', `/config/apps/http/servers/${HTTPS_SERVER}/tls_connection_policies`, [{}]).catch(ignoreExists);
    }
    if (server || routed.length > 0) {
      const routes = ((await this.request<CaddyObject[]>('GET', HTTPS_ROUTES)) ?? []) as CaddyObject[];
      // One route per app: its hostnames → its current upstream.
      const byApp = new Map<string, string[]>();
      for (const d of routed) byApp.set(d.appId, [...(byApp.get(d.appId) ?? []), d.hostname]);
      const wantRoutes = new Map(
        [...byApp].map(([appId, hosts]) => [
          routeId(appId),
          {
            '@id': routeId(appId),
            match: [{ host: hosts.sort() }],
            handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: `127.0.0.1:${upstreams.get(appId)}` }] }],
            terminal: true,
          },
        ]),
      );
      const next = mergeOwned(routes, wantRoutes, this.owned, 'domains-app-');
      if (next.changed) {
        await this.request('PATCH', HTTPS_ROUTES, next.list);
        added += next.added;
        removed += next.removed;
      }
    }

    // One redirect route in front of the ingress routes for every routed hostname.
    const ingressRoutes = ((await this.request<CaddyObject[]>('GET', INGRESS_ROUTES)) ?? []) as CaddyObject[];
    const have = ingressRoutes.find((r) => r['@id'] === this.redirectId);
    const port = this.settings.httpsPort === 443 ? '' : `:${this.settings.httpsPort}`;
    const redirect = {
      '@id': this.redirectId,
      match: [{ host: routed.map((d) => d.hostname).sort() }],
      handle: [{ handler: 'static_response', status_code: 308, headers: { Location: [`https://{http.request.host}${port}{http.request.uri}`] } }],
      terminal: true,
    };
    if (routed.length === 0 && have) {
      await this.request('DELETE', `/id/${this.redirectId}`);
    } else if (routed.length > 0 && !have) {
      await this.request('PUT', `${INGRESS_ROUTES}/0`, redirect);
    } else if (routed.length > 0 && have && JSON.stringify(canonical(have)) !== JSON.stringify(canonical(redirect))) {
      await this.request('PATCH', `/id/${this.redirectId}`, redirect);
    }

    this.owned.clear();
    for (const id of [...wantPolicies.keys(), ...new Set(routed.map((d) => routeId(d.appId)))]) this.owned.add(id);
    await this.save();
    // The log of certificate events while there are domains; none left, it leaves Caddy's config.
    const logChange = domains.length ? this.ensureTlsLog() : this.removeTlsLog();
    await logChange.catch((e: Error) => this.logger.debug({ err: e.message }, 'the Caddy TLS log of custom domains not changed'));
    if (added || removed) this.logger.info({ added, removed, domains: domains.length, routed: routed.length }, 'custom domains reconciled');
    return { added, removed };
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
    return saveJson(this.file, { domains: this.domains(), owned: [...this.owned] });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(work);
  }

  private async request<T = unknown>(method: string, p: string, body?: unknown): Promise<T | null> {
    const send = () => caddyRequest<T>(this.adminUrl, method, p, body, 30_000);
    // A kept-alive connection Caddy closed as the request left (it reloads often) is tried once more on a new one.
    const res = await send().catch(async (e: Error) => {
      if (!/fetch failed|other side closed|ECONNRESET/i.test(`${e.message} ${(e.cause as Error | undefined)?.message ?? ''}`)) throw e;
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
