import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LABELS, type AppRoute, type ManagedContainer } from '@slipway/core';
import type { Containers } from '../containers/containers';
import type { CaddyIngress } from '../ingress/caddy.ingress';
import { toCaddy } from '../ingress/caddy.ingress';
import { SettleWindows, type SettleWindow } from './settle-windows';

const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, child: () => quiet };
const readiness = { probe: { kind: 'http' as const, port: 8080, healthPath: '' }, timeoutMs: 1_000, settleMs: 3_000, hostPort: 20003 };
const window: SettleWindow = {
  appId: 'a-1',
  deploymentId: 'd-3',
  containerId: 'c-new',
  hostPort: 20003,
  routeHost: 'web.apps.test',
  imageId: 'sha256:3',
  stopGraceMs: 1_000,
  fallback: { containerId: 'c-old', deploymentId: 'd-2', hostPort: 20002 },
};
const listed = (id: string, deploymentId: string, state: string): ManagedContainer => ({
  id,
  name: `slipway-app-${deploymentId}`,
  image: 'x',
  state,
  labels: { [LABELS.app]: 'a-1', [LABELS.deployment]: deploymentId },
  createdAtMs: 0,
});

/** Fakes of the container layer and the ingress that record what the windows ask; the judge's verdict is the test's. */
function setup() {
  const calls: string[] = [];
  let verdict!: (problem: string | null) => void;
  let exit: string | null = null;
  let route: AppRoute & { fallbackPort?: number } = { appId: 'a-1', host: 'web.apps.test', upstreamPort: 20003, fallbackPort: 20002 };
  const containers = {
    watch: () => new Promise<string | null>((r) => (verdict = r)),
    armRestart: async (id: string) => void calls.push(`arm ${id}`),
    exitReason: async () => exit,
    stop: async (id: string) => void calls.push(`stop ${id}`),
    retire: async (ids: string[]) => void calls.push(`retire ${ids.join(',')}`),
  } as unknown as Containers;
  const ingress = {
    routeOf: () => route,
    put: async (r: AppRoute, fallbackPort?: number) => {
      route = { ...r, ...(fallbackPort ? { fallbackPort } : {}) };
      calls.push(`route ${r.upstreamPort}${fallbackPort ? ` then ${fallbackPort}` : ''}`);
    },
  } as unknown as CaddyIngress;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'settle-')), 'settle.json');
  const windows = new SettleWindows(containers, ingress, quiet, file, 0);
  // The verdict's work (the route, a saved file) is done within a few ms of real I/O.
  const settle = async () => new Promise((r) => setTimeout(r, 50));
  return { calls, windows, file, ingress, containers, verdict: (p: string | null) => verdict(p), exits: (why: string) => (exit = why), settle };
}

describe('settle windows (decision 0038)', () => {
  it('a release that passes: armed, the route keeps only it, the previous container retired, its image proven (saved)', async () => {
    const t = setup();
    t.windows.start(window, readiness);
    expect(await t.windows.decorate([listed('c-new', 'd-3', 'running')])).toEqual([{ ...listed('c-new', 'd-3', 'running'), settling: true }]);
    t.verdict(null);
    await t.settle();
    await t.settle();
    expect(t.calls).toEqual(['arm c-new', 'route 20003', 'retire c-old']);
    expect(t.windows.current('a-1')).toBeNull();
    // Passed: a later death is a crash after going live, the crash watch's to record.
    expect(t.windows.judges('c-new', 'a-1')).toBe(false);
    expect(t.windows.isProven('sha256:3')).toBe(true);
    const again = await new SettleWindows(t.containers, t.ingress, quiet, t.file).load();
    expect(again.isProven('sha256:3')).toBe(true);
  });

  it('a release that dies: the route goes back to the previous container, and the listing says why and who serves again', async () => {
    const t = setup();
    t.windows.start(window, readiness);
    // Its exit event says the window judges it (the control plane's crash watch leaves it to the comparison), before
    // the verdict and after it; the previous container, or another app's, is not judged here.
    expect([t.windows.judges('c-new', 'a-1'), t.windows.judges('c-old', 'a-1'), t.windows.judges('c-new', 'a-2')]).toEqual([true, false, false]);
    t.exits('The container exited with code 5');
    t.verdict('The container exited with code 5 2.0 s after it first answered');
    await t.settle();
    await t.settle();
    expect(t.calls).toEqual(['route 20002']);
    expect(t.windows.judges('c-new', 'a-1')).toBe(true);
    expect(await t.windows.decorate([listed('c-new', 'd-3', 'exited'), listed('c-old', 'd-2', 'running')])).toEqual([
      { ...listed('c-new', 'd-3', 'exited'), settleFailure: 'The container exited with code 5 2.0 s after it first answered', fallbackDeploymentId: 'd-2' },
      listed('c-old', 'd-2', 'running'),
    ]);
    expect(t.windows.isProven('sha256:3')).toBe(false);
    // Saved: an agent restarted before the control plane recorded the revert still reports it.
    const again = await new SettleWindows(t.containers, t.ingress, quiet, t.file).load();
    expect((await again.decorate([listed('c-new', 'd-3', 'exited')]))[0]).toMatchObject({ fallbackDeploymentId: 'd-2' });
  });

  it('a listing that finds the container exited concludes at once (before the judge looks again); one that hangs is stopped', async () => {
    const t = setup();
    t.windows.start(window, readiness);
    t.exits('The container exited with code 5');
    const [c] = await t.windows.decorate([listed('c-new', 'd-3', 'exited')]);
    // Said as the window's watch says it: how long after the window opened (when it first answered) it died.
    expect(c).toMatchObject({ settleFailure: expect.stringMatching(/^The container exited with code 5 \d+\.\d s after it first answered$/), fallbackDeploymentId: 'd-2' });
    // The route drops the dead container a moment later (Caddy's passive check routes around it meanwhile).
    await t.settle();
    expect(t.calls).toEqual(['route 20002']);
    t.verdict(null); // the judge's later verdict changes nothing
    await t.settle();
    expect(t.calls).toEqual(['route 20002']);

    const h = setup();
    h.windows.start(window, readiness);
    h.verdict('The app answered, then stopped answering 1.0 s later (no answer within 2000 ms)');
    await h.settle();
    await h.settle();
    expect(h.calls).toEqual(['route 20002', 'stop c-new']);
  });

  it('an agent restarted inside a window arms the container it was judging (no judge is left for it)', async () => {
    const t = setup();
    t.windows.start(window, readiness);
    await t.settle();
    const again = await new SettleWindows(t.containers, t.ingress, quiet, t.file).load();
    expect(t.calls).toEqual(['arm c-new']);
    expect(again.current('a-1')).toBeNull();
  });

  it('a newer rollout or a power action cancels the window: the container is armed, no verdict follows', async () => {
    const t = setup();
    t.windows.start(window, readiness);
    expect(await t.windows.cancel('a-1')).toMatchObject({ containerId: 'c-new', fallback: { containerId: 'c-old' } });
    t.verdict('The container exited with code 5 2.0 s after it first answered');
    await t.settle();
    expect(t.calls).toEqual(['arm c-new']);
    expect(await t.windows.cancel('a-1')).toBeNull();
  });
});

describe('the route of a release inside its settle window', () => {
  it('has the new upstream first and the previous one behind it: first available, one failure marks it down, retried', () => {
    expect(toCaddy({ appId: 'a-1', host: 'web.apps.test', upstreamPort: 20003 }, 20002)).toEqual({
      '@id': 'app-a-1',
      match: [{ host: ['web.apps.test'] }],
      handle: [
        {
          handler: 'reverse_proxy',
          upstreams: [{ dial: '127.0.0.1:20003' }, { dial: '127.0.0.1:20002' }],
          load_balancing: { selection_policy: { policy: 'first' }, try_duration: '5s', try_interval: '10ms' },
          health_checks: { passive: { fail_duration: '10s', max_fails: 1 } },
        },
      ],
    });
    expect(toCaddy({ appId: 'a-1', host: 'web.apps.test', upstreamPort: 20003 })).toEqual({
      '@id': 'app-a-1',
      match: [{ host: ['web.apps.test'] }],
      handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: '127.0.0.1:20003' }] }],
    });
  });
});
