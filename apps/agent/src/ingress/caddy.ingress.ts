import { X509Certificate } from 'node:crypto';
import type { AppRoute, Logger, RemoteRoute } from '@slipway/core';
import { agentTlsName } from '@slipway/pki';
import { caddyRequest, loadJson, saveJson, SerialQueue, Watchdog } from './caddy-admin';

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
 * The ingress of this server: Caddy, driven through its admin API. Each app route is `@id: app-<appId>`, matches
 * the app's host and proxies to 127.0.0.1:<host port>, and sits in front of the `slipway-fallback` route (404).
 * The routes this agent wants are kept in `<dataDir>/routes.json` as well as in Caddy, and a watchdog puts back
 * whatever Caddy lost (Caddy restarted with its bootstrap config, or the agent restarted): reconciliation
 * takes seconds, not a control-plane round.
 */
export class CaddyIngress {
  private readonly wanted = new Map<string, AppRoute>();
  /** The fallback upstream port of an app whose new release is inside its settle window (not saved: a window ends with the agent). */
  private readonly fallbacks = new Map<string, number>();
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
    () => this.serial(() => this.reconcile()),
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
  /** Told after the app routes changed (custom domains follow their app's upstream); their failures never fail a change. */
  private readonly listeners: (() => Promise<void>)[] = [];

  constructor(
    private readonly adminUrl: string,
    private readonly file: string,
    private readonly logger: Logger,
    private readonly o: { recentMs?: number; now?: () => number } = {},
  ) {}

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
      this.wanted.delete(appId);
      this.fallbacks.delete(appId);
      this.touched(appId);
      await this.save();
      await this.request('DELETE', `/id/${routeId(appId)}`).catch((e: Error) => {
        if (!/404|unknown object ID/i.test(e.message)) throw e;
      });
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
      for (const id of ids) {
        this.wanted.delete(id);
        this.fallbacks.delete(id);
        this.touched(id);
      }
      await this.save();
      const gone = new Set(ids.map(routeId));
      const current = (await this.request<CaddyRoute[]>('GET', ROUTES)) ?? [];
      const kept = current.filter((r) => !gone.has(r['@id'] ?? ''));
      if (kept.length !== current.length) await this.request('PATCH', ROUTES, kept);
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
      return this.reconcile();
    });
  }

  /** Every `intervalMs`: routes missing from Caddy or pointing elsewhere are put back, strays removed. */
  watch(intervalMs = 2_000): void {
    this.watchdog.start(intervalMs);
  }

  stop(): void {
    this.watchdog.stop();
  }

  private async reconcile(): Promise<{ added: number; removed: number }> {
    const current = (await this.request<CaddyRoute[]>('GET', ROUTES)) ?? [];
    const seen = new Map<string, CaddyRoute>();
    for (const r of current) if (r['@id']?.startsWith('app-')) seen.set(r['@id'].slice(4), r);
    let added = 0;
    let removed = 0;
    for (const route of this.wanted.values()) {
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

  private async apply(route: AppRoute, exists?: boolean): Promise<void> {
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
    return this.queue.run(work);
  }

  private async request<T = unknown>(method: string, p: string, body?: unknown): Promise<T | null> {
    const res = await caddyRequest<T>(this.adminUrl, method, p, body, 10_000);
    if (res.status >= 400) throw new Error(`Caddy answered ${res.status} to ${method} ${p}: ${res.text.trim()}`);
    return res.json;
  }
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
