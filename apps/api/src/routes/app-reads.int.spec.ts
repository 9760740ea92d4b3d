// Issue 34, item 1: no read waits on an agent. A real app on the real agent writes 20 MB into its project folder; the
// agent measures it, the metrics.collect job carries the figure onto the app's row; then the agent is stopped and the
// app reads (one app, the list) still answer at once with that figure and its age, as does the engines read with what
// the last health check recorded. Before, these reads asked the agent (a stopped one gave usedMb null after 1.5 s).
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

const MB = 1024 * 1024;
type Disk = { limitMb: number; usedMb: number | null; measuredAt: string | null };

describe('app reads answer from PostgreSQL while the agent is stopped (issue 34)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string };
  let app: { id: string; url: string };
  let collected: Disk;
  let agentStopped = false;

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const readApp = async () => (await client.get(`${appsPath()}/${app.id}`)).body as { disk: Disk };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'app-reads', metrics: { intervalMs: 1_000, folderIntervalMs: 1_000 } });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
    const res = await client.post(appsPath(), { name: `reads ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(res.status).toBe(201);
    app = res.body;
    const deployment = await client.post(`${appsPath()}/${app.id}/deployments`, {});
    expect(deployment.status).toBe(201);
    // Live, not just answering: a first release serves from its first answer, while its settle window still runs (the
    // agent is stopped below).
    await waitFor(async () => (await client.get(`${appsPath()}/${app.id}/deployments/${deployment.body.id}`)).body.status === 'live', 90_000, 'the deployment to be live');
    await waitFor(async () => (await p.viaIngress(app.url).catch(() => null))?.body === 'v1\n', 90_000, 'the app to answer');
    const put = await client.request('PUT', `${appsPath()}/${app.id}/files/content?path=big.bin`, { raw: randomBytes(20 * MB), headers: { 'content-type': 'application/octet-stream' } });
    expect(put.status).toBeLessThan(300);
    // A minute closes on the agent, then the control plane collects it (as its metrics.collect job does every minute).
    collected = (
      await waitUntil(
        async () => {
          await new Promise((r) => setTimeout(r, 1_000));
          await p.worker.services.metrics.collectAll();
          return readApp();
        },
        (a) => (a.disk.usedMb ?? 0) >= 20,
        150_000,
        'the folder usage to be collected',
      )
    ).disk;
    // The engines as the agent reports them at a health check.
    await p.worker.services.nodes.checkHealth();
    await p.agent.agent.close(1_000);
    agentStopped = true;
  });

  afterAll(async () => {
    // Back up for the platform's own cleanup (its routes, folders and containers).
    await (agentStopped ? p?.agent.restart() : undefined);
    await p?.close();
  });

  it('GET …/apps/{id} answers with the last collected folder usage and its age', async () => {
    const res = await client.get(`${appsPath()}/${app.id}`);
    expect(res.status).toBe(200);
    expect(res.body.disk).toEqual(collected);
    expect(res.body.disk.usedMb).toBeGreaterThanOrEqual(20);
    expect(res.body.disk.usedMb).toBeLessThan(40);
    expect(Date.parse(res.body.disk.measuredAt)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(Date.parse(res.body.disk.measuredAt)).toBeLessThanOrEqual(Date.now());
  });

  it('GET …/apps answers every app with its figure and age', async () => {
    const res = await client.get(appsPath());
    expect(res.status).toBe(200);
    expect((res.body.data as { id: string; disk: Disk }[]).map((a) => ({ id: a.id, disk: a.disk }))).toEqual([{ id: app.id, disk: collected }]);
  });

  it('PATCH …/apps/{id} answers with the same figure (no agent asked)', async () => {
    const res = await client.patch(`${appsPath()}/${app.id}`, { name: 'reads renamed' });
    expect(res.status).toBe(200);
    expect(res.body.disk).toEqual(collected);
  });

  it('GET /v1/database-engines answers what the last health check recorded, with its time', async () => {
    const res = await client.get('/v1/database-engines');
    expect(res.status).toBe(200);
    const postgres = (res.body.data as { engine: string; available: boolean; checkedAt: string | null }[]).find((e) => e.engine === 'postgres');
    expect(postgres).toMatchObject({ available: true, checkedAt: expect.any(String) });
    expect(Date.parse(postgres!.checkedAt!)).toBeGreaterThan(Date.now() - 10 * 60_000);
  });
});
