import { silentLogger } from '@slipway/testing/logger';
import { appCacheRecords, appsNamedIn, BuildCaches, cacheBoundBytes, cacheIdOf, cacheMarker, cacheVerdict, pruneFilterOf, type CacheEngine, type CacheRecord } from './build-cache';
import { failureReason } from './failure-reason';

const MB = 1024 * 1024;
const APP = '3f0c1e9a-8d1b-4a57-9a0e-2b1d7c6e5f40';
const OTHER = '3f0c1e9a-8d1b-4a57-9a0e-2b1d7c6e5f4';

// Descriptions as Docker 20.10's GET /system/df writes them (checked on this machine's engine).
const record = (ID: string, Description: string, Size: number, Type = 'exec.cachemount'): CacheRecord => ({ ID, Type, Description, Size, InUse: false });
const pm = (appId: string) => `cached mount /cache from exec /bin/sh -c ${cacheMarker(cacheIdOf(appId))}sh /usr/local/bin/slipway-install && mkdir -p node_modules`;
const next = (appId: string) => `cached mount /app/.next/cache from exec /bin/sh -c ${cacheMarker(cacheIdOf(appId))}node /usr/local/share/slipway/with-env.cjs npm run build`;

const RECORDS = [
  record('w1t348vdydt6dpz56adaecjgg', pm(APP), 300 * MB),
  record('t0ws5hqwkqn83o2i9dd76z5lm', next(APP), 25 * MB),
  record('qqq903csedaqak30k1enhylsq', pm(OTHER), 224 * MB),
  // Before the marker (an older agent's builds): nobody's, left to BuildKit's own collection.
  record('lw3przxq5b4tmhb6nvix49dyk', 'cached mount /cache from exec /bin/sh -c sh /usr/local/bin/slipway-install && mkdir -p node_modules', 53 * MB),
  // A layer whose command names the app is not a cache mount.
  record('h2wngsgiejzxvfh2u9ebwkz6o', `/bin/sh -c ${cacheMarker(cacheIdOf(APP))}npm ci`, 90 * MB, 'regular'),
];

describe('the bound of an app build cache', () => {
  it("is the app's disk size", () => {
    expect(cacheBoundBytes(1024)).toBe(1024 * MB);
    expect(cacheBoundBytes(512)).toBe(512 * MB);
  });
  it("is the plans' smallest disk when the app has none yet, and never below 1 MB", () => {
    expect(cacheBoundBytes(0)).toBe(512 * MB);
    expect(cacheBoundBytes(Number.NaN)).toBe(512 * MB);
    expect(cacheBoundBytes(0.001)).toBe(1 * MB);
  });
  it('clears the whole cache once it holds more than the bound, not at the bound', () => {
    expect(cacheVerdict(appCacheRecords(RECORDS, APP), 325)).toEqual({ bytes: 325 * MB, boundBytes: 325 * MB, clear: false });
    expect(cacheVerdict(appCacheRecords(RECORDS, APP), 324)).toEqual({ bytes: 325 * MB, boundBytes: 324 * MB, clear: true });
    expect(cacheVerdict([], 1).clear).toBe(false);
  });
});

describe("an app's cache records", () => {
  it('are the cache mounts whose RUN step starts with its marker', () => {
    expect(appCacheRecords(RECORDS, APP).map((r) => r.ID)).toEqual(['w1t348vdydt6dpz56adaecjgg', 't0ws5hqwkqn83o2i9dd76z5lm']);
  });
  it("never another app's, even one whose id starts with or is part of this one's", () => {
    expect(appCacheRecords(RECORDS, OTHER).map((r) => r.ID)).toEqual(['qqq903csedaqak30k1enhylsq']);
    expect(appCacheRecords(RECORDS, APP.slice(1))).toEqual([]);
  });
  it('none when the engine lists none', () => {
    expect(appCacheRecords(null, APP)).toEqual([]);
    expect(appCacheRecords(undefined, APP)).toEqual([]);
  });
  it('a record is pruned by its id alone, anchored (the engine reads id as a regular expression)', () => {
    expect(JSON.parse(pruneFilterOf('w1t348vdydt6dpz56adaecjgg'))).toEqual({ id: ['^w1t348vdydt6dpz56adaecjgg$'] });
    expect(() => pruneFilterOf('.*')).toThrow('Not a build cache record id');
  });
  it("the marker does not change the step a failure names", () => {
    const step = `RUN --mount=type=cache,id=slipway-${APP}-pm,target=/cache,sharing=locked ${cacheMarker(cacheIdOf(APP))}sh /usr/local/bin/slipway-install && mkdir -p node_modules`;
    expect(failureReason(step, ['npm error 404 Not Found - GET https://registry.npmjs.org/nope'], "The command '/bin/sh -c …' returned a non-zero code: 1", 1024)).toMatch(/^Installing the dependencies failed \(exit code 1\)/);
  });
});

/** The engine's two calls, recorded: df answers `records`, a prune removes the record its filter names. */
function engine(records: CacheRecord[]) {
  const pruned: string[] = [];
  const listings = { count: 0 };
  const e: CacheEngine = {
    df: () => {
      listings.count += 1;
      return Promise.resolve({ BuildCache: records.filter((r) => !pruned.includes(r.ID)) });
    },
    pruneBuilder: (o) => {
      const id = (JSON.parse(o.filters) as { id: [string] }).id[0].slice(1, -1);
      pruned.push(id);
      return Promise.resolve({ SpaceReclaimed: records.find((r) => r.ID === id)?.Size ?? 0 });
    },
  };
  return { e, pruned, listings };
}

describe('BuildCaches', () => {
  it('after a build within the bound: one line with the size, nothing pruned', async () => {
    const { e, pruned } = engine(RECORDS);
    const lines: string[] = [];
    const v = await new BuildCaches(e, silentLogger).bound(APP, 1024, (l) => lines.push(l));
    expect(v?.clear).toBe(false);
    expect(pruned).toEqual([]);
    expect(lines).toEqual(["This app's build cache holds 325 MB, kept for its next build (at most 1.0 GB, the app's disk size)"]);
  });
  it("past the bound: every record of the app pruned, none of another's, and one sentence saying why", async () => {
    const { e, pruned } = engine(RECORDS);
    const lines: string[] = [];
    await new BuildCaches(e, silentLogger).bound(APP, 256, (l) => lines.push(l));
    expect(pruned).toEqual(['w1t348vdydt6dpz56adaecjgg', 't0ws5hqwkqn83o2i9dd76z5lm']);
    expect(lines).toEqual([
      "This app's build cache was cleared: it held 325 MB, more than the app's disk size of 256 MB (325 MB freed); the next build installs and builds without it",
    ]);
  });
  it('an engine that fails the listing: a warning in the log, never a failed build', async () => {
    const lines: string[] = [];
    const failing: CacheEngine = { df: () => Promise.reject(new Error('connect ENOENT /var/run/docker.sock')), pruneBuilder: () => Promise.resolve({}) };
    await expect(new BuildCaches(failing, silentLogger).bound(APP, 256, (l) => lines.push(l))).resolves.toBeNull();
    expect(lines).toEqual(["slipway warning: the size of this app's build cache could not be checked (connect ENOENT /var/run/docker.sock)"]);
  });
  it('removal of apps prunes each of their records from one listing: cache mounts, the layers of their steps and the layers on those, children first', async () => {
    const layers = [
      ...RECORDS,
      // The COPY of the source made on the app's install layer, and the build's layer on that: the app's alone.
      { ...record('c0pyc0pyc0pyc0pyc0pyc0py1', 'COPY app/ ./', 1 * MB, 'regular'), Parent: 'h2wngsgiejzxvfh2u9ebwkz6o' },
      { ...record('bu1ldbu1ldbu1ldbu1ldbu1l2', 'mount / from exec /bin/sh -c npm run build', 2 * MB, 'regular'), Parent: 'c0pyc0pyc0pyc0pyc0pyc0py1' },
      // Another app's layer on a shared base layer: untouched.
      { ...record('0therl4yer0therl4yer0the3', 'COPY app/ ./', 4 * MB, 'regular'), Parent: 'b4seb4seb4seb4seb4seb4se4' },
    ];
    const { e, pruned } = engine(layers);
    await expect(new BuildCaches(e, silentLogger).remove([APP])).resolves.toEqual({ records: 5, bytes: 418 * MB });
    expect(pruned).toEqual(['w1t348vdydt6dpz56adaecjgg', 't0ws5hqwkqn83o2i9dd76z5lm', 'bu1ldbu1ldbu1ldbu1ldbu1l2', 'c0pyc0pyc0pyc0pyc0pyc0py1', 'h2wngsgiejzxvfh2u9ebwkz6o']);
    await expect(new BuildCaches(e, silentLogger).remove([OTHER])).resolves.toEqual({ records: 1, bytes: 224 * MB });
    await expect(new BuildCaches(e, silentLogger).remove([])).resolves.toEqual({ records: 0, bytes: 0 });
  });
  it("removal of apps never built here asks the engine's listing once, at the first removal, and prunes nothing", async () => {
    const { e, pruned, listings } = engine(RECORDS);
    const caches = new BuildCaches(e, silentLogger);
    const IMAGE_APP = '9b2d4e6f-1a3c-4e5f-8a7b-0c1d2e3f4a5b';
    // A teardown of no apps (a workspace with databases only) asks nothing.
    await expect(caches.remove([])).resolves.toEqual({ records: 0, bytes: 0 });
    expect(listings.count).toBe(0);
    await expect(caches.remove([IMAGE_APP])).resolves.toEqual({ records: 0, bytes: 0 });
    await expect(caches.remove([IMAGE_APP, 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f'])).resolves.toEqual({ records: 0, bytes: 0 });
    expect(listings.count).toBe(1);
    expect(pruned).toEqual([]);
    // An app the first listing named: its records listed again and pruned; then it is known to have none.
    await expect(caches.remove([OTHER])).resolves.toEqual({ records: 1, bytes: 224 * MB });
    await caches.remove([OTHER]);
    expect(listings.count).toBe(2);
  });
  it('an app built after the first listing has its records pruned at its removal', async () => {
    const records: CacheRecord[] = [];
    const { e, pruned } = engine(records);
    const caches = new BuildCaches(e, silentLogger);
    await caches.remove([OTHER]); // the listing, before the app's first build
    caches.using(APP);
    records.push(...RECORDS);
    await expect(caches.remove([APP])).resolves.toEqual({ records: 3, bytes: 415 * MB });
    expect(pruned).toEqual(['w1t348vdydt6dpz56adaecjgg', 't0ws5hqwkqn83o2i9dd76z5lm', 'h2wngsgiejzxvfh2u9ebwkz6o']);
  });
  it('names the apps of the records from their markers, whatever the record type', () => {
    expect([...appsNamedIn(RECORDS)].sort()).toEqual([OTHER, APP].sort());
  });
});
