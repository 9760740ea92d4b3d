// The wanted set of CaddyIngress against a sync read before this agent's own change (issue 34's "last intent wins"):
// the `routes.sync` job reads the apps' live deployments, a rollout on the agent puts the new upstream meanwhile, and
// the sync arriving after it must not put the old upstream back (the old release is stopped once its settle window
// ends: requests would fail until the next sync). Caddy is not reachable here: each call records the wanted set first,
// then fails to apply it, which is what these cases read.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@slipway/core';
import { CaddyIngress } from './caddy.ingress';

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const route = (appId: string, upstreamPort: number) => ({ appId, host: `${appId}.apps.test`, upstreamPort });

describe('CaddyIngress: a sync read before a change made here leaves that change', () => {
  let dir: string;
  let now: number;
  let ingress: CaddyIngress;
  const settled = (p: Promise<unknown>) => p.then(() => undefined, () => undefined);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-ingress-'));
    now = 1_000_000;
    // Port 9 on loopback: nothing listens, every admin request fails at once.
    ingress = new CaddyIngress('http://127.0.0.1:9', path.join(dir, 'routes.json'), quiet, { recentMs: 15_000, now: () => now });
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps a rollout's new upstream (and its settle window's fallback) against an older sync, then follows the next sync", async () => {
    await settled(ingress.sync([route('a', 1001)]));
    expect(ingress.routeOf('a')).toEqual(route('a', 1001));
    now += 60_000;
    await settled(ingress.put(route('a', 1002), 1001));
    now += 2_000;
    await settled(ingress.sync([route('a', 1001)]));
    expect(ingress.routeOf('a')).toEqual({ ...route('a', 1002), fallbackPort: 1001 });
    now += 30_000;
    await settled(ingress.sync([route('a', 1001)]));
    expect(ingress.routeOf('a')).toEqual(route('a', 1001));
  });

  it('does not bring back a route removed here, and still takes the sync for every other app', async () => {
    await settled(ingress.sync([route('a', 1001), route('b', 2001)]));
    now += 60_000;
    await settled(ingress.remove('b'));
    now += 1_000;
    await settled(ingress.sync([route('a', 1003), route('b', 2001), route('c', 3001)]));
    expect(ingress.routeOf('b')).toBeNull();
    expect(ingress.routeOf('a')).toEqual(route('a', 1003));
    expect(ingress.routeOf('c')).toEqual(route('c', 3001));
  });

  it('a removal of many at once counts as a change made here', async () => {
    await settled(ingress.sync([route('a', 1001), route('b', 2001)]));
    now += 60_000;
    await settled(ingress.removeAll(['a', 'b']));
    now += 1_000;
    await settled(ingress.sync([route('a', 1001), route('b', 2001)]));
    expect(ingress.routes()).toEqual([]);
  });
});
