import { X509Certificate } from 'node:crypto';
import type { AppRoute, Logger, RemoteRoute } from '@slipway/core';
import { agentTlsName } from '@slipway/pki';
import { caddyRequest, loadJson, saveJson, SerialQueue, Watchdog } from './caddy-admin';
import { type HaproxyMap, type MapValue, WINDOW_BACKENDS } from './haproxy';

const SERVER = 'ingress';
const ROUTES = `/config/apps/http/servers/${SERVER}/routes`;
const routeId = (appId: string) => `app-${appId}`;
const remoteId = (appId: string) => `remote-${appId}`;

interface CaddyRoute {
  '@id'?: string;
  match?: { host?: string[] }[];
  handle?: {
    handler: string;
    upstreams?: { dial: string }[];
    transport?: { protocol: string; tls?: { server_name?: string; root_ca_pool?: (string | null)[] } };
    load_balancing?: Record<string, unknown>;
    health_checks?: Record<string, unknown>;
  }[];
}

/**
 * A route with a fallback upstream (a release inside its settle window, the previous release kept warm behind it;
 * decision 0038): Caddy sends every request to the first upstream while it is available (`first`); a request that
 * fails there (the new container died: the connection is refused, or reset mid-request for a GET) marks it down for
 * FALLBACK_FAIL_DURATION (passive health check, one failure) and is tried again on the fallback within
 * FALLBACK_TRY_DURATION, so the client never sees the failure. The agent takes the dead upstream out of the route
 * within a fraction of a second; the passive check covers the time in between.
 */
const FALLBACK_TRY_DURATION = '5s';
const FALLBACK_TRY_INTERVAL = '10ms';
const FALLBACK_FAIL_DURATION = '10s';

/**
 * The ingress of this server, in one of two designs (decision 0040):
 * - **HAProxy in front** (`haproxy` given, SLIPWAY_HAPROXY_DIR): each app route is an entry of HAProxy's map (host →
 *   upstream port, or `w<n>`, a window backend holding a release in its settle window and the previous one behind it),
 *   changed through HAProxy's runtime API in constant time whatever the number of routes; the map file is rewritten
 *   after each change (what HAProxy loads at its next start). Hosts the map does not hold go to Caddy behind it:
 *   other servers' apps (`remote-<appId>` routes, still Caddy config), custom domains' redirects and challenges, the 404.
 * - **Caddy alone** (no `haproxy`): each app route is `@id: app-<appId>`, matches the app's host and proxies to
 *   127.0.0.1:<host port>, and sits in front of the `slipway-fallback` route (404); every change reloads Caddy's config.
 * The routes this agent wants are kept in `<dataDir>/routes.json` as well, and a watchdog puts back whatever the proxy
 * lost (HAProxy or Caddy restarted, or the agent restarted): reconciliation takes seconds, not a control-plane round.
 */
export class CaddyIngress {
  private readonly wanted = new Map<string, AppRoute>();
  /** The fallback upstream port of an app whose new release is inside its settle window (not saved: a window ends with the agent). */
  private readonly fallbacks = new Map<string, number>();
  /** HAProxy only: the window backend (`w<n>`) of each app whose settle window has a warm previous release. */
  private readonly windows = new Map<string, number>();
  /**
   * Other servers' apps (issue 31): their hosts are proxied to the owner's mesh listener over TLS, its certificate
   * checked against the platform's CA (`meshCaPem`). Without that CA (a server outside a fleet, tests) none is routed.
   */
  private readonly remote = new Map<string, RemoteRoute>();
  private readonly remoteOwned = new Set<string>();
  private meshCaDer: string | null = null;
  /**
   * Apps whose routes this agent put into Caddy and has not yet seen removed. Only these are ever removed as strays:
   * a Caddy shared with other agents (tests, a misconfiguration) keeps their routes.
   */
  private readonly owned = new Set<string>();
  private readonly queue = new SerialQueue();
  private readonly watchdog = new Watchdog(
    () => this.serial(() => this.reconcile(false)),
    (e) => this.logger.debug({ err: e.message }, 'ingress reconciliation skipped'),
  );
  private readonly pendingRemovals = new Set<string>();
  private removal: Promise<void> | null = null;
  /**
   * When this agent last put or removed each app's route itself (a rollout, a revert, a removal). A sync is the
   * control plane's view read some time before it arrives: for an app changed here since (within `recentMs`), the
   * change made here is the newer intent and the sync's route for it is left to the next sync.
   */
  private readonly changedAt = new Map<string, number>();
  /**
   * HAProxy only: this server's custom domains in the same map (decision 0040 step 4), `d:<hostname>` → the app's host,
   * which HAProxy's `own` frontend looks up in turn: a domain follows its app's route (rollouts, settle windows) with no
   * change of its own. Set by CustomDomains (`setDomainEntries`); null until it did (the watchdog leaves `d:` entries alone).
   */
  private domainEntries: Map<string, string> | null = null;
  /** Told after the app routes changed (custom domains follow their app's upstream); their failures never fail a change. */
  private readonly listeners: (() => Promise<void>)[] = [];

  constructor(
    private readonly adminUrl: string,
    private readonly file: string,
    private readonly logger: Logger,
    private readonly o: {
      recentMs?: number;
      now?: () => number;
      /** App routes in HAProxy's map instead of Caddy's config (decision 0040). */
      haproxy?: HaproxyMap | null;
      /** How often the watchdog reads HAProxy's whole map to compare it (MAP_CHECK_MS); between, its worker and entry count. */
      mapCheckMs?: number;
    } = {},
  ) {
    this.haproxy = o.haproxy ?? null;
  }

  /** App routes in HAProxy's map instead of Caddy's config (decision 0040). */
  private readonly haproxy: HaproxyMap | null;
  /** When HAProxy's whole map was last compared with the wanted routes. */
  private mapCheckedAt = -Infinity;

  private touched(appId: string): void {
    this.changedAt.set(appId, (this.o.now ?? Date.now)());
  }

  async load(): Promise<this> {
    const saved = await loadJson<{ routes: AppRoute[]; owned: string[]; remote?: RemoteRoute[]; remoteOwned?: string[] }>(this.file);
    if (saved === undefined) return this;
    for (const r of saved.routes) this.wanted.set(r.appId, r);
    for (const id of saved.owned) this.owned.add(id);
    for (const r of saved.remote ?? []) this.remote.set(r.appId, r);
    for (const id of saved.remoteOwned ?? []) this.remoteOwned.add(id);
    return this;
  }

  /** Routes other servers' apps, trusting their mesh certificates when the platform's CA (PEM) signed them. */
  trustMesh(caPem: string): this {
    this.meshCaDer = new X509Certificate(caPem).raw.toString('base64');
    return this;
  }

  /** The platform's CA (DER, base64) other servers' mesh certificates are checked against; null: no mesh. */
  meshTrust(): string | null {
    return this.meshCaDer;
  }

  routes(): AppRoute[] {
    return [...this.wanted.values()];
  }

  /** With HAProxy in front: the socket of its `own` frontend (this server's apps and custom domains from the map). */
  haproxyOwnSocket(): string | null {
    return this.haproxy?.ownSocket ?? null;
  }

  /**
   * HAProxy only: makes this server's custom-domain entries of the map exactly `entries` (hostname → its app's host),
   * each added or removed with one runtime-API command (constant time, no reload of anything), the map file rewritten.
   */
  setDomainEntries(entries: Map<string, string>): Promise<{ added: number; removed: number }> {
    return this.serial(async () => {
      const map = this.haproxy;
      if (!map) throw new Error('custom-domain map entries need HAProxy in front (SLIPWAY_HAPROXY_DIR)');
      const before = this.domainEntries ?? new Map<string, string>();
      const next = new Map<string, string>();
      for (const [host, appHost] of entries) {
        try {
          next.set(checkMapHost(host.toLowerCase()), checkMapHost(appHost.toLowerCase()));
        } catch (e) {
          // One name HAProxy's map cannot hold does not keep the others out.
          this.logger.warn({ host, err: (e as Error).message }, 'a custom domain left out of the map');
        }
      }
      let added = 0;
      let removed = 0;
      // Leaving names first, then the ones that come or change.
      for (const host of before.keys()) {
        if (next.has(host)) continue;
        await this.delDomainEntry(map, host);
        removed++;
      }
      this.domainEntries = next;
      for (const [host, appHost] of next) {
        if (before.get(host) === appHost) continue;
        await this.setDomainEntry(map, host, appHost);
        added++;
      }
      if (added || removed) await this.saveMap();
      return { added, removed };
    });
  }

  private async setDomainEntry(map: HaproxyMap, host: string, appHost: string): Promise<void> {
    const key = `${DOMAIN_KEY}${host}`;
    const out = await map.command(`set map ${map.mapFile} ${key} ${appHost}`);
    if (!out) return;
    if (!/not found/i.test(out)) throw new Error(`HAProxy refused the custom domain ${host}: ${out}`);
    const added = await map.command(`add map ${map.mapFile} ${key} ${appHost}`);
    if (added) throw new Error(`HAProxy refused the custom domain ${host}: ${added}`);
  }

  private async delDomainEntry(map: HaproxyMap, host: string): Promise<void> {
    const out = await map.command(`del map ${map.mapFile} ${DOMAIN_KEY}${host}`);
    if (out && !/not found/i.test(out)) throw new Error(`HAProxy refused to remove the custom domain ${host}: ${out}`);
  }

  onChange(listener: () => Promise<void>): void {
    this.listeners.push(listener);
  }

  private async changed(): Promise<void> {
    for (const l of this.listeners) await l().catch((e: Error) => this.logger.warn({ err: e.message }, 'a follower of the app routes failed (its watchdog retries)'));
  }

  /**
   * Routes `route.host` to its upstream now (replacing the app's route in place when there is one). With
   * `fallbackPort`, requests that fail on the upstream are tried again on that port (a settle window, decision 0038);
   * without, any fallback the app had is dropped.
   */
  put(route: AppRoute, fallbackPort?: number): Promise<void> {
    return this.serial(async () => {
      if (fallbackPort && fallbackPort !== route.upstreamPort) this.fallbacks.set(route.appId, fallbackPort);
      else this.fallbacks.delete(route.appId);
      this.wanted.set(route.appId, route);
      this.owned.add(route.appId);
      this.touched(route.appId);
      await this.save();
      await this.apply(route);
      await this.changed();
    });
  }

  /** The app's route as wanted now (its upstream port), and the fallback port behind it during a settle window. */
  routeOf(appId: string): (AppRoute & { fallbackPort?: number }) | null {
    const route = this.wanted.get(appId);
    if (!route) return null;
    const fallbackPort = this.fallbacks.get(appId);
    return fallbackPort ? { ...route, fallbackPort } : route;
  }

  remove(appId: string): Promise<void> {
    return this.serial(async () => {
      const route = this.wanted.get(appId);
      this.wanted.delete(appId);
      this.fallbacks.delete(appId);
      this.touched(appId);
      await this.save();
      if (this.haproxy) {
        if (route) await this.haproxy.del(route.host.toLowerCase());
        await this.closeWindow(appId);
        await this.saveMap();
      } else {
        await this.request('DELETE', `/id/${routeId(appId)}`).catch((e: Error) => {
          if (!/404|unknown object ID/i.test(e.message)) throw e;
        });
      }
      this.owned.delete(appId);
      await this.save();
      await this.changed();
    });
  }

  /**
   * Removes many apps' routes with one change of Caddy's config: every change reloads it, which with hundreds of routes
   * is what a workspace deletion waited on. Concurrent calls (teardowns of several workspaces) share one change.
   */
  removeAll(appIds: string[]): Promise<void> {
    for (const id of appIds) this.pendingRemovals.add(id);
    this.removal ??= this.serial(async () => {
      // Callers from now on start the next batch; this one takes what is pending.
      this.removal = null;
      const ids = [...this.pendingRemovals];
      this.pendingRemovals.clear();
      const hosts: string[] = [];
      for (const id of ids) {
        const route = this.wanted.get(id);
        if (route) hosts.push(route.host.toLowerCase());
        this.wanted.delete(id);
        this.fallbacks.delete(id);
        this.touched(id);
      }
      await this.save();
      if (this.haproxy) {
        for (const host of hosts) await this.haproxy.del(host);
        for (const id of ids) await this.closeWindow(id);
        await this.saveMap();
      } else {
        const gone = new Set(ids.map(routeId));
        const current = (await this.request<CaddyRoute[]>('GET', ROUTES)) ?? [];
        const kept = current.filter((r) => !gone.has(r['@id'] ?? ''));
        if (kept.length !== current.length) await this.request('PATCH', ROUTES, kept);
      }
      for (const id of ids) this.owned.delete(id);
      await this.save();
      await this.changed();
    });
    return this.removal;
  }

  /**
   * Makes the wanted set `routes` (and `remote`, other servers' apps), then brings Caddy in line — except for apps
   * whose route this agent changed itself within `recentMs` (default 15 s): the sync was read before that change, so
   * the change stands (a rollout's new upstream is not put back to the old one, a removed route does not come back).
   */
  async sync(routes: AppRoute[], remote: RemoteRoute[] = []): Promise<{ added: number; removed: number }> {
    return this.serial(async () => {
      const now = (this.o.now ?? Date.now)();
      const recentMs = this.o.recentMs ?? 15_000;
      for (const [appId, at] of this.changedAt) if (now - at >= recentMs) this.changedAt.delete(appId);
      const next = new Map<string, AppRoute>();
      for (const r of routes) if (!this.changedAt.has(r.appId)) next.set(r.appId, r);
      for (const [appId, r] of this.wanted) if (this.changedAt.has(appId)) next.set(appId, r);
      // A settle window's fallback stays only while the app is routed to the same (new) container.
      for (const appId of this.fallbacks.keys()) if (next.get(appId)?.upstreamPort !== this.wanted.get(appId)?.upstreamPort) this.fallbacks.delete(appId);
      this.wanted.clear();
      for (const r of next.values()) {
        this.wanted.set(r.appId, r);
        this.owned.add(r.appId);
      }
      this.remote.clear();
      if (this.meshCaDer) {
        for (const r of remote) {
          if (this.wanted.has(r.appId)) continue; // its own app: served here
          this.remote.set(r.appId, r);
          this.remoteOwned.add(r.appId);
        }
      }
      await this.save();
      return this.reconcile(true);
    });
  }

  /** Every `intervalMs`: routes missing from Caddy or pointing elsewhere are put back, strays removed. */
  watch(intervalMs = 2_000): void {
    this.watchdog.start(intervalMs);
  }

  stop(): void {
    this.watchdog.stop();
  }

  /** `thorough`: HAProxy's whole map compared now (a sync); else when something says it may differ (reconcileMap). */
  private async reconcile(thorough: boolean): Promise<{ added: number; removed: number }> {
    // HAProxy's map first: it does not depend on Caddy being there.
    const inMap = this.haproxy ? await this.reconcileMap(thorough) : { added: 0, removed: 0 };
    const current = (await this.request<CaddyRoute[]>('GET', ROUTES)) ?? [];
    const seen = new Map<string, CaddyRoute>();
    for (const r of current) if (r['@id']?.startsWith('app-')) seen.set(r['@id'].slice(4), r);
    let added = inMap.added;
    let removed = inMap.removed;
    if (this.haproxy) {
      // App routes live in HAProxy's map: this agent's routes left in Caddy (from before the switch) go.
      for (const appId of seen.keys()) {
        if (!this.owned.has(appId)) continue;
        await this.request('DELETE', `/id/${routeId(appId)}`);
        removed++;
      }
      seen.clear();
    }
    for (const route of this.haproxy ? [] : this.wanted.values()) {
      const have = seen.get(route.appId);
      if (have && same(have, route, this.fallbacks.get(route.appId))) continue;
      await this.apply(route, have !== undefined);
      added++;
    }
    for (const appId of seen.keys()) {
      if (this.wanted.has(appId) || !this.owned.has(appId)) continue;
      await this.request('DELETE', `/id/${routeId(appId)}`);
      removed++;
    }
    for (const appId of this.owned) if (!this.wanted.has(appId) && !seen.has(appId)) this.owned.delete(appId);
    const remote = await this.reconcileRemote(current);
    added += remote.added;
    removed += remote.removed;
    if (added || removed) {
      this.logger.info({ added, removed }, 'ingress routes reconciled');
      await this.changed();
    }
    return { added, removed };
  }

  /** Other servers' apps: each `remote-<appId>` route in place, in front of the fallback and behind this server's own. */
  private async reconcileRemote(current: CaddyRoute[]): Promise<{ added: number; removed: number }> {
    const seen = new Map<string, CaddyRoute>();
    for (const r of current) if (r['@id']?.startsWith('remote-')) seen.set(r['@id'].slice(7), r);
    let added = 0;
    let removed = 0;
    for (const route of this.remote.values()) {
      const body = this.toRemoteCaddy(route);
      const have = seen.get(route.appId);
      if (have && sameRemote(have, body)) continue;
      if (have) {
        await this.request('PATCH', `/id/${remoteId(route.appId)}`, body);
      } else {
        // In front of the fallback (the last route): a server's own route for a host, were there one, comes first.
        const routes = (await this.request<CaddyRoute[]>('GET', ROUTES)) ?? [];
        const fallback = routes.findIndex((r) => r['@id'] === 'slipway-fallback');
        await this.request('PUT', `${ROUTES}/${fallback === -1 ? routes.length : fallback}`, body);
      }
      added++;
    }
    for (const appId of seen.keys()) {
      if (this.remote.has(appId) || !this.remoteOwned.has(appId)) continue;
      await this.request('DELETE', `/id/${remoteId(appId)}`);
      removed++;
    }
    for (const appId of this.remoteOwned) if (!this.remote.has(appId) && !seen.has(appId)) this.remoteOwned.delete(appId);
    return { added, removed };
  }

  private toRemoteCaddy(route: RemoteRoute): CaddyRoute {
    return {
      '@id': remoteId(route.appId),
      match: [{ host: [route.host] }],
      handle: [
        {
          handler: 'reverse_proxy',
          upstreams: [{ dial: route.ownerAddress }],
          transport: { protocol: 'http', tls: { root_ca_pool: [this.meshCaDer], server_name: agentTlsName(route.ownerName) } },
        },
      ],
    };
  }

  /**
   * HAProxy's map made exactly the wanted routes (entries missing or pointing elsewhere set, others removed: the map is
   * this agent's alone), window backends set again when HAProxy's worker changed (a restart or reload forgets them).
   */
  private async reconcileMap(thorough: boolean): Promise<{ added: number; removed: number }> {
    const map = this.haproxy!;
    const restarted = await map.workerChanged();
    // The whole map is read when something says it may differ: a sync, a restart (the map file reloaded, the window
    // backends lost), a change that failed, an entry count other than the wanted one (an entry lost behind this agent's
    // back), and at least every MAP_CHECK_MS (one changed in place). Not at every tick: 1,000 entries every 2 s were a
    // tenth of what the agent allocated at 1,000 apps (issue 34).
    if (!thorough && !restarted && Date.now() - this.mapCheckedAt < (this.o.mapCheckMs ?? MAP_CHECK_MS)) {
      // One entry per app (no two apps share a host) and per custom domain.
      const wanted = this.domainEntries ? this.wanted.size + this.domainEntries.size : null;
      if (wanted !== null && (await map.count()) === wanted) return { added: 0, removed: 0 };
    }
    this.mapCheckedAt = Date.now();
    const have = await map.entries();
    let added = 0;
    let removed = 0;
    const hosts = new Set<string>();
    for (const route of this.wanted.values()) {
      const host = route.host.toLowerCase();
      hosts.add(host);
      const window = this.windows.get(route.appId);
      const fallbackPort = this.fallbacks.get(route.appId);
      if (restarted && window !== undefined && fallbackPort) await map.openWindow(window, route.upstreamPort, fallbackPort);
      if (have.get(host) === this.mapValue(route)) continue;
      await this.applyMap(route);
      added++;
    }
    // Custom domains' entries (`d:<hostname>`): as CustomDomains set them; left alone until it did.
    const domains = this.domainEntries;
    for (const [host, appHost] of domains ?? []) {
      if (have.get(`${DOMAIN_KEY}${host}`) === appHost) continue;
      await this.setDomainEntry(map, host, appHost);
      added++;
    }
    for (const key of have.keys()) {
      if (key.startsWith(DOMAIN_KEY)) {
        if (!domains || domains.has(key.slice(DOMAIN_KEY.length))) continue;
        await this.delDomainEntry(map, key.slice(DOMAIN_KEY.length));
        removed++;
        continue;
      }
      if (hosts.has(key)) continue;
      await map.del(key);
      removed++;
    }
    if (added || removed || restarted) await this.saveMap();
    return { added, removed };
  }

  /** The app's map entry: its window backend during a settle window with a warm previous release, else its port. */
  private mapValue(route: AppRoute): MapValue {
    const window = this.windows.get(route.appId);
    return window !== undefined && this.fallbacks.has(route.appId) ? `w${window}` : `${route.upstreamPort}`;
  }

  /**
   * The app's entry in HAProxy's map. With a fallback (a settle window), a free window backend takes the new release
   * and the previous one behind it and the host maps to it; without a free one, the host maps to the new release alone
   * (as a first release). Without a fallback the host maps to the port and the app's window backend is freed after.
   */
  private async applyMap(route: AppRoute): Promise<void> {
    const map = this.haproxy!;
    const host = route.host.toLowerCase();
    const fallbackPort = this.fallbacks.get(route.appId);
    if (fallbackPort) {
      let window = this.windows.get(route.appId);
      if (window === undefined) {
        const used = new Set(this.windows.values());
        window = Array.from({ length: WINDOW_BACKENDS }, (_, i) => i).find((i) => !used.has(i));
      }
      if (window !== undefined) {
        this.windows.set(route.appId, window);
        await map.openWindow(window, route.upstreamPort, fallbackPort);
        await map.set(host, `w${window}`);
        return;
      }
      this.logger.info({ appId: route.appId }, 'every window backend of HAProxy is in use: this release takes its route without the previous one behind it');
    }
    await map.set(host, `${route.upstreamPort}`);
    await this.closeWindow(route.appId);
  }

  private async closeWindow(appId: string): Promise<void> {
    const window = this.windows.get(appId);
    if (window === undefined || !this.haproxy) return;
    this.windows.delete(appId);
    await this.haproxy.closeWindow(window);
  }

  /** The map file HAProxy loads at its next start: every wanted route to its current upstream port (no windows). */
  private saveMap(): Promise<void> {
    const routes = [...this.wanted.values()].map((r) => [r.host.toLowerCase(), `${r.upstreamPort}`] as [string, string]);
    const domains = [...(this.domainEntries ?? [])].map(([host, appHost]) => [`${DOMAIN_KEY}${host}`, appHost] as [string, string]);
    return this.haproxy!.save([...routes, ...domains]);
  }

  private async apply(route: AppRoute, exists?: boolean): Promise<void> {
    if (this.haproxy) {
      await this.applyMap(route);
      await this.saveMap();
      return;
    }
    const body = toCaddy(route, this.fallbacks.get(route.appId));
    if (exists ?? (await this.exists(route.appId))) {
      // Replacing in place: Caddy swaps its config gracefully, requests in flight finish on the old upstream.
      await this.request('PATCH', `/id/${routeId(route.appId)}`, body);
    } else {
      // PUT on an array index inserts there: in front of every other route, the fallback last.
      await this.request('PUT', `${ROUTES}/0`, body);
    }
  }

  private async exists(appId: string): Promise<boolean> {
    try {
      await this.request('GET', `/id/${routeId(appId)}`);
      return true;
    } catch {
      return false;
    }
  }

  private save(): Promise<void> {
    return saveJson(this.file, { routes: this.routes(), owned: [...this.owned], remote: [...this.remote.values()], remoteOwned: [...this.remoteOwned] });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      try {
        return await work();
      } catch (e) {
        // A change that failed half-way may have left HAProxy's map unlike the wanted routes: the next tick compares.
        this.mapCheckedAt = -Infinity;
        throw e;
      }
    });
  }

  private async request<T = unknown>(method: string, p: string, body?: unknown): Promise<T | null> {
    const res = await caddyRequest<T>(this.adminUrl, method, p, body, 10_000);
    if (res.status >= 400) throw new Error(`Caddy answered ${res.status} to ${method} ${p}: ${res.text.trim()}`);
    return res.json;
  }
}

/** The map key prefix of a custom domain's entry (a `:` never reaches a lookup of the ingress frontend, which cuts the Host at it). */
const DOMAIN_KEY = 'd:';
/** How often the watchdog compares HAProxy's whole map with the wanted routes when nothing says it changed. */
const MAP_CHECK_MS = 30_000;

/** A host name as a map key or value: a DNS name only, nothing a runtime-API command could read otherwise. */
const MAP_HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
function checkMapHost(host: string): string {
  if (host.length > 253 || !MAP_HOST.test(host)) throw new Error(`"${host}" is not a host name HAProxy's map can hold`);
  return host;
}

const same = (have: CaddyRoute, route: AppRoute, fallbackPort?: number) =>
  have.match?.[0]?.host?.[0] === route.host &&
  JSON.stringify(have.handle?.[0]?.upstreams?.map((u) => u.dial) ?? []) === JSON.stringify(dials(route, fallbackPort));

const dials = (route: AppRoute, fallbackPort?: number) => [`127.0.0.1:${route.upstreamPort}`, ...(fallbackPort ? [`127.0.0.1:${fallbackPort}`] : [])];

const sameRemote = (have: CaddyRoute, want: CaddyRoute) => {
  const [h, w] = [have.handle?.[0], want.handle?.[0]];
  return (
    have.match?.[0]?.host?.[0] === want.match?.[0]?.host?.[0] &&
    h?.upstreams?.[0]?.dial === w?.upstreams?.[0]?.dial &&
    h?.transport?.tls?.server_name === w?.transport?.tls?.server_name &&
    h?.transport?.tls?.root_ca_pool?.[0] === w?.transport?.tls?.root_ca_pool?.[0]
  );
};

/** The app's Caddy route; with a fallback port, the new upstream first and the previous one behind it (decision 0038). */
export function toCaddy(route: AppRoute, fallbackPort?: number): CaddyRoute {
  const upstreams = dials(route, fallbackPort).map((dial) => ({ dial }));
  return {
    '@id': routeId(route.appId),
    match: [{ host: [route.host] }],
    handle: [
      fallbackPort
        ? {
            handler: 'reverse_proxy',
            upstreams,
            load_balancing: { selection_policy: { policy: 'first' }, try_duration: FALLBACK_TRY_DURATION, try_interval: FALLBACK_TRY_INTERVAL },
            health_checks: { passive: { fail_duration: FALLBACK_FAIL_DURATION, max_fails: 1 } },
          }
        : { handler: 'reverse_proxy', upstreams },
    ],
  };
}
