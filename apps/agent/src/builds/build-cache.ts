import Docker from 'dockerode';
import type { Logger } from '@slipway/core';

/**
 * Per-app BuildKit caches bounded by the app's disk (issue 30, docs/decisions/0030): the cache mounts of an app's
 * builds (`id=slipway-<appId>-pm`, `…-build`) are measured after each of its builds, cleared when they pass the
 * app's disk size, and removed with the app or its workspace.
 *
 * Docker 20.10's engine does not show a cache mount's id: `GET /system/df` lists a BuildCache record of type
 * `exec.cachemount` whose Description is `cached mount <target> from exec /bin/sh -c <command>`, the RUN step that
 * made it. So every RUN step with an app's cache mount starts with a no-op naming the app (`cacheMarker`), and an
 * app's records are those whose command starts with it. `POST /build/prune` accepts the filters `id` (a regular
 * expression over the record id), `parent`, `type`, `description` (exact), `inuse`, `shared`, `private`, `until`,
 * one value each (more: "filters expect only one value"; others: "Invalid filter"); `all=true` is needed for cache
 * mounts (kept by BuildKit's policy otherwise). Records in use by a running build are left by the engine.
 */

/** The record fields read here of `GET /system/df`'s BuildCache. */
export interface CacheRecord {
  ID: string;
  Type: string;
  Description: string;
  Size: number;
  InUse?: boolean;
  /** The record this one was made on (a layer on the one before it). */
  Parent?: string | null;
}

/** What of the engine the caches use: `GET /system/df` and `POST /build/prune`. */
export interface CacheEngine {
  df(): Promise<{ BuildCache?: CacheRecord[] | null }>;
  pruneBuilder(o: { all: boolean; filters: string }): Promise<{ SpaceReclaimed?: number; CachesDeleted?: string[] | null }>;
}

/**
 * The engine at a socket. The prune is dialled here with its query: dockerode's `pruneBuilder` (4.x) sends none of
 * its options, and `POST /build/prune` without filters prunes every unused record of the engine, every app's.
 */
export function cacheEngineAt(socketPath: string): CacheEngine {
  const docker = new Docker({ socketPath });
  return {
    df: () => docker.df() as Promise<{ BuildCache?: CacheRecord[] | null }>,
    pruneBuilder: (o) =>
      new Promise((resolve, reject) => {
        docker.modem.dial(
          { path: '/build/prune?', method: 'POST', options: { _query: { all: o.all, filters: o.filters }, _body: {} }, statusCodes: { 200: true, 400: 'bad parameter', 500: 'server error' } },
          (err: unknown, data: unknown) => (err ? reject(err as Error) : resolve(data as { SpaceReclaimed?: number; CachesDeleted?: string[] | null })),
        );
      }),
  };
}

/** The id of an app's cache mounts (`<cacheId>-pm`, `<cacheId>-build`). */
export const cacheIdOf = (appId: string) => `slipway-${appId}`;

/** The no-op every RUN step with an app's cache mount starts with, so the engine's record of the mount names the app. */
export const cacheMarker = (cacheId: string) => `: ${cacheId}-cache && `;

/** Before an app's first rollout made its project folder, the bound is the plans' smallest disk (apps.runtime's DEFAULT_DISK_MB). */
export const DEFAULT_CACHE_BOUND_MB = 512;

/**
 * The rule: an app's build caches may hold as much as its disk reservation (the size of its project folder, the
 * app's `diskMb`), i.e. a server never holds more than twice an app's disk for it (folder + caches) on top of its
 * images. Past it, the whole cache is cleared (the next build runs cold but correct). Never below 1 MB.
 */
export function cacheBoundBytes(diskMb: number): number {
  const mb = Number.isFinite(diskMb) && diskMb > 0 ? diskMb : DEFAULT_CACHE_BOUND_MB;
  return Math.max(1, mb) * 1024 * 1024;
}

/** The records of an app's cache mounts: type exec.cachemount, made by a RUN step starting with the app's marker. */
export function appCacheRecords(records: readonly CacheRecord[] | null | undefined, appId: string): CacheRecord[] {
  const marker = ` -c ${cacheMarker(cacheIdOf(appId))}`;
  return (records ?? []).filter((r) => r.Type === 'exec.cachemount' && typeof r.Description === 'string' && r.Description.includes(marker));
}

export interface CacheVerdict {
  bytes: number;
  boundBytes: number;
  clear: boolean;
}

/** What to do with an app's records after a build: clear them all when their size passes the bound. */
export function cacheVerdict(records: readonly CacheRecord[], diskMb: number): CacheVerdict {
  const bytes = records.reduce((n, r) => n + (Number.isFinite(r.Size) && r.Size > 0 ? r.Size : 0), 0);
  const boundBytes = cacheBoundBytes(diskMb);
  return { bytes, boundBytes, clear: bytes > boundBytes };
}

/**
 * The records to prune when apps go, children before parents: every record (any type) whose step names one of the apps'
 * markers, and every record made on one of those.
 */
export function appRecordsForRemoval(records: readonly CacheRecord[], appIds: readonly string[]): CacheRecord[] {
  const markers = appIds.map((appId) => ` -c ${cacheMarker(cacheIdOf(appId))}`);
  const doomed = new Set(records.filter((r) => typeof r.Description === 'string' && markers.some((m) => r.Description.includes(m))).map((r) => r.ID));
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of records) {
      if (r.Parent && doomed.has(r.Parent) && !doomed.has(r.ID)) {
        doomed.add(r.ID);
        grew = true;
      }
    }
  }
  const ordered: CacheRecord[] = [];
  const left = new Set(doomed);
  while (left.size) {
    const leaves = records.filter((r) => left.has(r.ID) && !records.some((c) => c.Parent === r.ID && left.has(c.ID)));
    if (!leaves.length) break;
    for (const r of leaves) {
      ordered.push(r);
      left.delete(r.ID);
    }
  }
  return ordered;
}

/** The prune filter of one record: its id, anchored (the engine reads `id` as a regular expression). */
export function pruneFilterOf(recordId: string): string {
  if (!/^[a-z0-9]+$/i.test(recordId)) throw new Error(`Not a build cache record id: ${JSON.stringify(recordId)}`);
  return JSON.stringify({ id: [`^${recordId}$`] });
}

export function formatMb(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  if (mb >= 1024) return `${(mb / 1024).toFixed(1)} GB`;
  return mb >= 10 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

type Emit = (line: string) => void;

/** The apps whose marker the records name (any record made by a RUN step with an app's cache mount). */
export function appsNamedIn(records: readonly CacheRecord[] | null | undefined): Set<string> {
  const apps = new Set<string>();
  const marker = new RegExp(` -c ${cacheMarker(cacheIdOf('(?<app>[0-9a-f-]+)'))}`);
  for (const r of records ?? []) {
    const app = typeof r.Description === 'string' ? marker.exec(r.Description)?.groups?.app : undefined;
    if (app) apps.add(app);
  }
  return apps;
}

/** The engine's records of apps' BuildKit caches: measured and bounded after a build, removed with the app. */
export class BuildCaches {
  private readonly engine: CacheEngine;
  /**
   * The apps this engine may hold records of: those named in one listing (made at the first removal after the agent
   * started) and every app built since. `GET /system/df` lists every container, image and volume of the engine with
   * its size as well: asked at each app's removal, a teardown of 1,000 apps (most never built here: image apps) asked
   * it 1,000 times, each answer ~1 MB, the agent's largest allocation at that moment.
   */
  private listed: Promise<Set<string>> | null = null;
  private readonly builtSince = new Set<string>();

  constructor(
    engine: CacheEngine | string,
    private readonly logger: Logger,
  ) {
    this.engine = typeof engine === 'string' ? cacheEngineAt(engine) : engine;
  }

  /** The app's cache records now. */
  async records(appId: string): Promise<CacheRecord[]> {
    return appCacheRecords((await this.engine.df()).BuildCache, appId);
  }

  /**
   * After a build of the app: its caches' size against the bound of its disk; past it, every record of the app is
   * pruned. One sentence in the build log either way. Never fails the build (a failure is a warning in the log).
   */
  async bound(appId: string, diskMb: number, emit: Emit): Promise<CacheVerdict | null> {
    try {
      const records = await this.records(appId);
      const verdict = cacheVerdict(records, diskMb);
      if (!verdict.clear) {
        if (records.length) emit(`This app's build cache holds ${formatMb(verdict.bytes)}, kept for its next build (at most ${formatMb(verdict.boundBytes)}, the app's disk size)`);
        return verdict;
      }
      const freed = await this.prune(records);
      emit(
        `This app's build cache was cleared: it held ${formatMb(verdict.bytes)}, more than the app's disk size of ${formatMb(verdict.boundBytes)}` +
          ` (${formatMb(freed)} freed); the next build installs and builds without it`,
      );
      return verdict;
    } catch (e) {
      this.logger.warn({ appId, err: (e as Error).message }, 'could not measure or clear an app build cache');
      emit(`slipway warning: the size of this app's build cache could not be checked (${(e as Error).message})`);
      return null;
    }
  }

  /**
   * Everything the engine keeps of these apps' builds (their removal, a workspace's teardown), from one listing: their
   * cache mounts, the layers of their RUN steps (named by the marker too: the install's holds node_modules) and the
   * layers made on those, pruned one by one, children before parents (the engine prunes no record another is made on).
   */
  async remove(appIds: readonly string[]): Promise<{ records: number; bytes: number }> {
    if (!appIds.length) return { records: 0, bytes: 0 };
    const listed = await this.appsWithRecords();
    const built = appIds.filter((id) => listed.has(id) || this.builtSince.has(id));
    if (!built.length) return { records: 0, bytes: 0 };
    const all = (await this.engine.df()).BuildCache ?? [];
    const ordered = appRecordsForRemoval(all, built);
    const bytes = await this.prune(ordered);
    for (const id of built) {
      listed.delete(id);
      this.builtSince.delete(id);
    }
    return { records: ordered.length, bytes };
  }

  /** Before a build of the app with its cache mounts: its records are looked for when it is removed. */
  using(appId: string): void {
    this.builtSince.add(appId);
  }

  private appsWithRecords(): Promise<Set<string>> {
    this.listed ??= this.engine.df().then(
      (d) => appsNamedIn(d.BuildCache),
      (e: unknown) => {
        this.listed = null; // asked again at the next removal
        throw e;
      },
    );
    return this.listed;
  }

  private async prune(records: readonly CacheRecord[]): Promise<number> {
    let freed = 0;
    for (const r of records) {
      const out = await this.engine.pruneBuilder({ all: true, filters: pruneFilterOf(r.ID) });
      freed += out.SpaceReclaimed ?? 0;
      const others = (out.CachesDeleted ?? []).filter((id) => id !== r.ID);
      if (others.length) this.logger.warn({ record: r.ID, others: others.length }, 'a build cache prune by record id removed other records too');
    }
    return freed;
  }
}
