// One host, many workspaces, end to end (API, workers, agent, real Docker and Caddy): workspace networks under
// concurrent first deployments, healing of duplicates, deletion that removes everything, failure reasons a user can
// act on, and a second platform on the same engine that keeps its containers.
import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { LABELS } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(240_000);

// What an engine, a transport or a queue says; a user never reads it.
const ENGINE = /HTTP code|unexpected -|OCI|runc|container_linux|daemon|driver|address pool|ambiguous|sha256:|ECONN|UNAVAILABLE|stalled/i;

interface Deployment {
  id: string;
  status: string;
  failureReason: string | null;
}

/** A user on a platform: workspaces, apps, deployments through the API. */
function userOf(p: TestPlatform, client: ApiClient) {
  const apps = (ws: string) => `/v1/workspaces/${ws}/apps`;
  return {
    async app(ws: string, image: string = p.images.v1) {
      const res = await client.post(apps(ws), { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image, memoryMb: 128 });
      expect(res.status).toBe(201);
      return res.body as { id: string; url: string };
    },
    async deploy(ws: string, appId: string): Promise<Deployment> {
      const res = await client.post(`${apps(ws)}/${appId}/deployments`, {});
      expect(res.status).toBe(201);
      return waitFor(
        async () => {
          const d = (await client.get(`${apps(ws)}/${appId}/deployments/${res.body.id}`)).body as Deployment;
          return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
        },
        90_000,
        `deployment ${res.body.id} to finish`,
      );
    },
    async log(ws: string, appId: string, deploymentId: string): Promise<string> {
      const body = (await client.get(`${apps(ws)}/${appId}/deployments/${deploymentId}/logs?limit=1000`)).body as { data: { text: string }[] };
      return body.data.map((l) => l.text).join('\n');
    },
  };
}

describe('workspaces on one server (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let user: ReturnType<typeof userOf>;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'workspaces-on-server', readyTimeoutMs: 10_000, stopGraceMs: 2_000 });
    client = p.client();
    user = userOf(p, client);
    await signUp(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const networksOf = async (ws: string) =>
    (await p.docker.listNetworks()).filter((n) => n.Labels?.[LABELS.workspace] === ws || n.Name === `slipway-ws-${ws}` || n.Name === `slipway-wsnet-${ws}`);
  const containersOf = (label: string, id: string) => p.docker.listContainers({ all: true, filters: { label: [`${label}=${id}`] } });

  it('deploys three apps of a new workspace at the same moment: all go live, on one network', async () => {
    const ws = await createWorkspace(client);
    const apps = await Promise.all([0, 1, 2].map(() => user.app(ws.id)));
    const done = await Promise.all(apps.map((a) => user.deploy(ws.id, a.id)));
    expect(done.map((d) => [d.status, d.failureReason])).toEqual([['live', null], ['live', null], ['live', null]]);
    const networks = await networksOf(ws.id);
    expect(networks).toHaveLength(1);
    for (const a of apps) {
      const [c] = await containersOf(LABELS.app, a.id);
      expect(Object.values(c!.NetworkSettings.Networks).map((n) => n.NetworkID)).toEqual([networks[0]!.Id]);
      expect(await p.viaIngress(a.url)).toEqual({ status: 200, body: 'v1\n' });
    }
  });

  it('heals a workspace holding two same-named networks on its next deployment', async () => {
    const ws = await createWorkspace(client);
    // What Docker 20.10 made of two concurrent creates by one name before this fix.
    // (Subnets of their own: the engine's default pools may be used up by other runs on this engine.)
    for (const subnet of ['192.0.2.16/29', '192.0.2.24/29']) {
      await p.docker.createNetwork({ Name: `slipway-ws-${ws.id}`, Driver: 'bridge', Labels: { [LABELS.workspace]: ws.id }, IPAM: { Driver: 'default', Config: [{ Subnet: subnet }] } });
    }
    expect(await networksOf(ws.id)).toHaveLength(2);
    const app = await user.app(ws.id);
    expect(await user.deploy(ws.id, app.id)).toMatchObject({ status: 'live', failureReason: null });
    const left = await networksOf(ws.id);
    expect(left.map((n) => n.Name)).toEqual([`slipway-wsnet-${ws.id}`]);
    // And the next one works too.
    expect(await user.deploy(ws.id, app.id)).toMatchObject({ status: 'live' });
  });

  it('deleting a workspace removes its containers, routes, images, folders and network, then its reservations, within 60 s', async () => {
    const ws = await createWorkspace(client);
    const apps = [await user.app(ws.id), await user.app(ws.id)];
    for (const a of apps) expect(await user.deploy(ws.id, a.id)).toMatchObject({ status: 'live' });
    expect(await p.db.reservation.count({ where: { workspaceId: ws.id } })).toBe(2);

    const started = Date.now();
    expect((await client.delete(`/v1/workspaces/${ws.id}`)).status).toBe(200);
    await waitFor(async () => (await p.db.operation.findFirst({ where: { workspaceId: ws.id, kind: 'workspace.teardown', status: 'succeeded' } })) !== null, 60_000, 'the teardown');
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(60);

    expect(await containersOf(LABELS.workspace, ws.id)).toEqual([]);
    expect(await networksOf(ws.id)).toEqual([]);
    for (const a of apps) {
      await expect(access(path.join(p.agent.dataDir, 'volumes', a.id))).rejects.toThrow();
      expect(await p.docker.listImages({ filters: { reference: [`slipway-app/${a.id}:*`] } })).toEqual([]);
      expect(await p.routed(a.id)).toBe(false);
      expect((await p.viaIngress(a.url)).status).not.toBe(200);
    }
    expect(await p.db.reservation.count({ where: { workspaceId: ws.id } })).toBe(0);
    expect(await p.db.app.count({ where: { workspaceId: ws.id, deletedAt: null } })).toBe(0);

    // Idempotent: a teardown run again (a new operation for the same workspace) finds nothing left and succeeds.
    const first = await p.db.operation.findFirstOrThrow({ where: { workspaceId: ws.id, kind: 'workspace.teardown' } });
    const again = await p.db.operation.create({ data: { kind: 'workspace.teardown', workspaceId: ws.id, nodeId: first.nodeId, payload: { workspaceId: ws.id } } });
    await p.worker.jobs.enqueue('workspace.teardown', { operationId: again.id }, { jobId: again.id });
    const done = await waitUntil(() => p.db.operation.findUniqueOrThrow({ where: { id: again.id } }), (row) => ['succeeded', 'failed'].includes(row.status), 30_000, 'the repeated teardown');
    expect(done).toMatchObject({ status: 'succeeded', result: { server: { containers: 0, images: 0, networks: 0 }, apps: 0, reservations: 0 } });
  });

  describe('a second platform on the same engine, with a network range of one subnet', () => {
    let q: TestPlatform;
    let qClient: ApiClient;
    let qUser: ReturnType<typeof userOf>;

    beforeAll(async () => {
      // 203.0.113.0/29 (documentation addresses) in /29s: room for exactly one workspace.
      q = await startTestPlatform({ name: 'second-platform', readyTimeoutMs: 10_000, stopGraceMs: 2_000, networks: { range: '203.0.113.0/29', subnetPrefix: 29 } });
      qClient = q.client();
      qUser = userOf(q, qClient);
      await signUp(qClient);
    });

    afterAll(async () => {
      await q?.close();
    });

    it('fails deployments with reasons about the app, never an engine message (which goes to the log), and keeps its containers from the first platform', async () => {
      expect(q.agent.agent.platformId).not.toBe(p.agent.agent.platformId);
      const first = await createWorkspace(qClient);
      const live = await qUser.app(first.id);
      expect(await qUser.deploy(first.id, live.id)).toMatchObject({ status: 'live' });

      const reasons: Deployment[] = [];
      // The range is full: a clear failure, and the operator's log says which setting to change.
      const second = await createWorkspace(qClient);
      const blocked = await qUser.app(second.id);
      const full = await qUser.deploy(second.id, blocked.id);
      expect(full).toMatchObject({ status: 'failed', failureReason: 'The server has no free network for this workspace; the operator has been told' });
      reasons.push(full);
      // An image no registry has and the server does not hold: the engine's words go to the log only.
      const missing = await qUser.app(first.id, `slipway-test/nothing-${randomBytes(3).toString('hex')}:1`);
      const pulled = await qUser.deploy(first.id, missing.id);
      expect(pulled.status).toBe('failed');
      expect(pulled.failureReason).toMatch(/^The image slipway-test\/nothing-\w+:1 could not be pulled: /);
      expect(await qUser.log(first.id, missing.id, pulled.id)).toMatch(/The pull failed: /);
      reasons.push(pulled);
      for (const d of reasons) expect(d.failureReason).not.toMatch(ENGINE);
      const all = await q.db.deployment.findMany({ where: { failureReason: { not: null } }, select: { failureReason: true } });
      for (const d of all) expect(d.failureReason).not.toMatch(ENGINE);

      // Each platform's reconciler leaves the other's containers alone, though it knows none of their workspaces.
      const theirs = await q.docker.listContainers({ all: true, filters: { label: [`${LABELS.app}=${live.id}`] } });
      expect(theirs).toHaveLength(1);
      const report = await p.worker.services.reconcile.run(`second-platform-${Date.now()}`);
      expect(report.orphansRemoved).toEqual([]);
      expect(report.workspacesRemoved).toEqual([]);
      expect((await q.docker.getContainer(theirs[0]!.Id).inspect()).State.Running).toBe(true);
      expect(await q.viaIngress(live.url)).toEqual({ status: 200, body: 'v1\n' });
      await q.worker.services.reconcile.run(`first-platform-${Date.now()}`);
      expect((await p.docker.listContainers({ filters: { label: [`${LABELS.platform}=${p.agent.agent.platformId}`] } })).length).toBeGreaterThan(0);
    });
  });

  describe("a platform whose network range holds 32 workspaces (more than the engine's 31 default pools)", () => {
    let r: TestPlatform;
    let rClient: ApiClient;
    let rUser: ReturnType<typeof userOf>;

    beforeAll(async () => {
      // 198.18.255.0/24 (benchmarking addresses) in /29s: 32 subnets, kept small so the test stays quick.
      r = await startTestPlatform({ name: 'range-32', readyTimeoutMs: 20_000, stopGraceMs: 2_000, networks: { range: '198.18.255.0/24', subnetPrefix: 29 } });
      rClient = r.client();
      rUser = userOf(r, rClient);
      await signUp(rClient);
    });

    afterAll(async () => {
      await r?.close();
    });

    it('deploys an app in each of 32 workspaces, then fails the 33rd clearly', async () => {
      const taken = (await r.docker.listNetworks()).filter((n) => n.IPAM?.Config?.some((c) => c.Subnet?.startsWith('198.18.255.'))).length;
      const room = 32 - taken;
      const workspaces = await Promise.all(Array.from({ length: room + 1 }, () => createWorkspace(rClient)));
      const apps = await Promise.all(workspaces.map((w) => rUser.app(w.id)));
      const results: Deployment[] = [];
      // Eight at a time, as a team would; the last workspace deploys after all others hold their subnets.
      for (let i = 0; i < room; i += 8) results.push(...(await Promise.all(apps.slice(i, Math.min(i + 8, room)).map((a, k) => rUser.deploy(workspaces[i + k]!.id, a.id)))));
      expect(results.filter((d) => d.status === 'live')).toHaveLength(room);
      expect(taken + room).toBeGreaterThan(31);
      const last = await rUser.deploy(workspaces[room]!.id, apps[room]!.id);
      expect(last).toMatchObject({ status: 'failed', failureReason: 'The server has no free network for this workspace; the operator has been told' });
    });
  });
});
