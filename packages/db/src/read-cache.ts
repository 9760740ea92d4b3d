// The API's reads from memory (issue 34, item 1; decision 0041): what every request reads (its credential with the
// membership it names, an app, a workspace's apps) is kept here, and PostgreSQL says when it changed. Triggers on the
// tables those reads come from send `NOTIFY slipway_reads, '<tag>'` on commit (migration read_notifications), whoever
// wrote: this API, the worker, slipway-admin, a psql session. One connection of this process LISTENs; each tag it
// hears drops every entry that carries it.
//
// What keeps it honest:
// - Nothing is served from memory unless that connection is listening. When it breaks, every entry is dropped and
//   reads go to PostgreSQL until it listens again.
// - A read that loaded from PostgreSQL keeps its result only if no tag was heard (and nothing was dropped) while it
//   loaded: a change that commits during the load can never be overwritten by the older row.
// - A request that changes something (POST, PUT, PATCH, DELETE) reads nothing from memory and keeps nothing; the tags
//   of what it read, and its workspace, are dropped before its answer is written, so the caller's next read sees its
//   own change even before the notification arrives (`writing`, `touched`).
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, type Notification } from 'pg';
import { deepFreeze } from '@slipway/core';
import type { SqlPool } from './sql-pool';

export const READS_CHANNEL = 'slipway_reads';

/** What a load found: the value, the tags whose change drops it, and (ms since the epoch) when it stops being true. */
export interface Loaded<T> {
  value: T;
  tags: readonly string[];
  until?: number;
}

interface Entry {
  value: unknown;
  tags: readonly string[];
  until: number;
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ReadCacheOptions {
  /** At most this many entries; the oldest go first (default 5,000). */
  maxEntries?: number;
  /** Wait before listening again after the connection broke (ms, default 1,000). */
  retryMs?: number;
  /** The channel listened to (default READS_CHANNEL; the tests use one nobody notifies, to see what holds without it). */
  channel?: string;
  logger?: Log;
}

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byTag = new Map<string, Set<string>>();
  /** Counts every drop: a load keeps its result only if this did not move while it ran. */
  private drops = 0;
  private client: Client | null = null;
  private listening = false;
  private closed = false;
  private started = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly writes = new AsyncLocalStorage<Set<string>>();
  private readonly maxEntries: number;
  private readonly retryMs: number;
  private readonly channel: string;
  private readonly counts = { hits: 0, misses: 0, drops: 0 };
  private readonly logger: Log | undefined;

  constructor(
    /** The pool whose connection settings the listening connection uses. */
    private readonly sql: SqlPool,
    options: ReadCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.retryMs = options.retryMs ?? 1_000;
    this.channel = options.channel ?? READS_CHANNEL;
    this.logger = options.logger;
  }

  /**
   * Starts listening; resolves once the first LISTEN is in place or failed (reads go to PostgreSQL until it is, and
   * it tries again). Once started, starting again does nothing.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.listen();
  }

  /** True while entries may be served: the connection is listening. */
  get live(): boolean {
    return this.listening;
  }

  /** Hits, misses and drops since start, and the entries held now (for benches and the tests). */
  stats(): { hits: number; misses: number; drops: number; entries: number } {
    return { ...this.counts, entries: this.entries.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.down();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /**
   * `key`'s value from memory when it is there, still true at `now` and the connection listens; else `load()`'s,
   * kept for the next read unless something was dropped meanwhile. A load that finds nothing is never kept (an
   * unknown credential must not fill memory). Inside `writing` it always loads, and notes the tags it read.
   */
  async read<T>(key: string, now: number, load: () => Promise<Loaded<T> | null>): Promise<T | null> {
    const touched = this.writes.getStore();
    if (touched) {
      const loaded = await load();
      for (const tag of loaded?.tags ?? []) touched.add(tag);
      return loaded ? loaded.value : null;
    }
    const hit = this.listening ? this.entries.get(key) : undefined;
    if (hit && hit.until > now) {
      this.counts.hits++;
      return hit.value as T;
    }
    this.counts.misses++;
    const before = this.drops;
    const loaded = await load();
    if (!loaded) return null;
    if (this.listening && this.drops === before) this.keep(key, loaded);
    return loaded.value;
  }

  /**
   * Runs `fn` (a request that changes things) with memory bypassed; returns the tags it read, which the caller drops
   * (`touched`) once the change is made and before anyone learns of it.
   */
  writing<T>(tags: Set<string>, fn: () => T): T {
    return this.writes.run(tags, fn);
  }

  /** Drops every entry that carries one of `tags`. */
  touched(tags: Iterable<string>): void {
    for (const tag of tags) this.drop(tag);
  }

  private keep(key: string, loaded: Loaded<unknown>): void {
    this.remove(key);
    deepFreeze(loaded.value);
    this.entries.set(key, { value: loaded.value, tags: loaded.tags, until: loaded.until ?? Number.POSITIVE_INFINITY });
    for (const tag of loaded.tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    if (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }

  private drop(tag: string): void {
    this.drops++;
    this.counts.drops++;
    for (const key of [...(this.byTag.get(tag) ?? [])]) this.remove(key);
  }

  /** Nothing is served until listening again: everything held may have changed unheard. */
  private down(): void {
    this.listening = false;
    this.drops++;
    this.entries.clear();
    this.byTag.clear();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: (this.sql as unknown as { options: { connectionString?: string } }).options.connectionString });
    this.client = client;
    const broke = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.down();
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger?.warn({ err: err?.message ?? 'connection ended' }, 'read cache: not listening; reads go to PostgreSQL until it listens again');
      this.retry = setTimeout(() => void this.listen(), this.retryMs);
      this.retry.unref();
    };
    client.on('error', broke);
    client.on('end', () => broke());
    client.on('notification', (n: Notification) => {
      if (n.channel === this.channel && n.payload) this.drop(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
      if (this.client !== client) return;
      // Whatever was loaded before the LISTEN took effect may already be stale: start empty.
      this.down();
      this.listening = true;
      this.logger?.info({}, 'read cache: listening');
    } catch (e) {
      broke(e as Error);
    }
  }
}

/** `reads.read(…)` when there is a cache (the API's), else the load itself (the worker, tests without one). */
export async function readThrough<T>(reads: ReadCache | undefined, key: string, now: number, load: () => Promise<Loaded<T> | null>): Promise<T | null> {
  if (reads) return reads.read(key, now, load);
  return (await load())?.value ?? null;
}
