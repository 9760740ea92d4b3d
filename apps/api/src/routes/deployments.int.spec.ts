import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/worker/src/testing';
import { startTestPlatform, type TestPlatform } from '../testing/platform';

jest.setTimeout(180_000);

describe('image apps end to end: deploy, ingress through Caddy, variables, stop/start, rollback, failures (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string; slug: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'deploy', readyTimeoutMs: 6_000, stopGraceMs: 3_000 });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const newApp = async (image: string, extra: Record<string, unknown> = {}) => {
    const res = await client.post(appsPath(), { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image, memoryMb: 128, ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: string; url: string; subdomain: string };
  };
  const deploy = async (appId: string, body: Record<string, unknown> = {}) => {
    const res = await client.post(`${appsPath()}/${appId}/deployments`, body);
    expect(res.status).toBe(201);
    return res.body as { id: string; status: string };
  };
  const settled = (appId: string, deploymentId: string) =>
    waitFor(
      async () => {
        const d = (await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      60_000,
      `deployment ${deploymentId} to finish`,
    );
  const served = (url: string, expected: string, p2 = '/') =>
    waitFor(async () => {
      const r = await p.viaIngress(url, p2).catch(() => null);
      return r?.status === 200 && r.body === expected ? r : null;
    }, 15_000, `${url}${p2} to answer ${JSON.stringify(expected)}`);

  it('deploys a locally built image and serves it through Caddy at <subdomain>.<apps domain>', async () => {
    const app = await newApp(p.images.v1);
    expect(app.url).toBe(`http://${app.subdomain}.${p.appsDomain}`);
    const d = await deploy(app.id);
    expect(d.status).toBe('queued');
    const done = await settled(app.id, d.id);
    expect(done).toMatchObject({ status: 'live', number: 1, imageAvailable: true, failureReason: null });
    // Live means routed: the very first request through Caddy answers.
    expect(await p.viaIngress(app.url)).toEqual({ status: 200, body: 'v1\n' });
    await served(app.url, 'v1\n');

    const got = (await client.get(`${appsPath()}/${app.id}`)).body;
    expect(got).toMatchObject({ status: 'running', desiredState: 'running', currentDeployment: { id: d.id, status: 'live' } });

    // The log: build (the pull, falling back to the local image) and deploy phases, read in chunks until done.
    const first = (await client.get(`${appsPath()}/${app.id}/deployments/${d.id}/logs?limit=2`)).body;
    expect(first.data).toHaveLength(2);
    expect(first.data[0]).toMatchObject({ seq: 1, phase: 'build' });
    expect(first.done).toBe(false);
    const rest = (await client.get(`${appsPath()}/${app.id}/deployments/${d.id}/logs?after=${first.nextAfter}`)).body;
    expect(rest.done).toBe(true);
    const text = [...first.data, ...rest.data].map((l: { text: string }) => l.text).join('\n');
    expect(text).toMatch(/using the image present on this server/);
    expect(rest.data.at(-1)).toMatchObject({ phase: 'deploy', text: 'Live' });

    // The project folder was seeded from the image's WORKDIR.
    await access(path.join(p.agent.dataDir, 'volumes', app.id, 'seed.txt'));
  });
});
