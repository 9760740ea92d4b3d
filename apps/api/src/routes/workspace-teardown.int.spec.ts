// Issue 34, item 3: deleting a workspace of many apps removes every container, network, project folder mount, image
// tag and route of it, in parallel on the agent under SLIPWAY_REMOVAL_CONCURRENCY (here 3, below the number of apps,
// so the bound is exercised). Real Docker, kernel mounts, Caddy, the API, the workers and an agent.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, workspaceLeftovers, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(420_000);

const APPS = 4; // the default plan's disk holds four apps of the minimum folder size

describe('deleting a workspace of many apps removes everything of it (issue 34)', () => {
  let p: TestPlatform;
  let client: ApiClient;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'ws-teardown', removalConcurrency: 3 });
    client = p.client();
    await signUp(client);
    // Room for more apps than the trial plan's 2 GB of disk holds (4): this test's own database copy.
    await p.db.plan.updateMany({ data: { cpuMillis: 64_000, memoryMb: 65_536, diskMb: 1_048_576 } });
  });

  afterAll(async () => {
    await p?.close();
  });

  /** Every app runs and has its route. */
  async function allRunning(workspaceId: string, appIds: string[]): Promise<boolean> {
    const apps = (await client.get(`/v1/workspaces/${workspaceId}/apps`)).body.data as { status: string }[];
    if (!apps.every((a) => a.status === 'running')) return false;
    return (await workspaceLeftovers(p, workspaceId, appIds)).routes === appIds.length;
  }

  it(`removes the containers, network, folder mounts, image tags and routes of ${APPS} apps`, async () => {
    const ws = await createWorkspace(client);
    const appIds: string[] = [];
    for (let i = 0; i < APPS; i++) {
      const res = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `app ${i} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
      expect(res.status).toBe(201);
      appIds.push(res.body.id);
    }
    for (const id of appIds) expect((await client.post(`/v1/workspaces/${ws.id}/apps/${id}/deployments`, {})).status).toBe(201);
    await waitFor(() => allRunning(ws.id, appIds), 240_000, 'every app to run');
    expect(await workspaceLeftovers(p, ws.id, appIds)).toEqual({ containers: APPS, networks: 1, mounts: APPS, images: APPS, routes: APPS });

    expect((await client.delete(`/v1/workspaces/${ws.id}`)).status).toBe(200);
    const gone = await waitUntil(() => workspaceLeftovers(p, ws.id, appIds), (h) => Object.values(h).every((n) => n === 0), 120_000, 'the workspace to be removed from the server');
    expect(gone).toEqual({ containers: 0, networks: 0, mounts: 0, images: 0, routes: 0 });
    // The teardown operation succeeded and the rows are purged.
    const op = await waitUntil(() => p.db.operation.findFirst({ where: { workspaceId: ws.id, kind: 'workspace.teardown' } }), (o) => o?.status === 'succeeded', 60_000, 'the teardown operation');
    expect(op).toMatchObject({ status: 'succeeded', error: null });
    expect(await p.db.reservation.count({ where: { workspaceId: ws.id } })).toBe(0);
  });
});
