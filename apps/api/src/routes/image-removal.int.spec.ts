import { randomBytes } from 'node:crypto';
import { nodeSample, zipOf } from '@slipway/testing/samples';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

// Issue 30, item 5: removing images (a workspace's teardown) and building share one discipline on the agent. Five
// apps built from the same package.json and lockfile are live; five more builds reusing what those made run while the
// first five workspaces are deleted. With the classic builder the cached dependency layers are parents of every one
// of their images: before the discipline, a build could fail with "unknown parent image ID" (its reused layer
// deleted). With BuildKit (the default engine) a teardown also prunes the deleted apps' cache records while the
// other apps' builds run.
jest.setTimeout(600_000);

const CA = '/etc/ssl/certs/ca-certificates.crt';

describe.each(['buildkit', 'classic'] as const)('image removal never breaks a build, %s engine (real Docker and Caddy)', (engine) => {
  let p: TestPlatform;
  let client: ApiClient;

  beforeAll(async () => {
    p = await startTestPlatform({ name: `image-removal-${engine}`, readyTimeoutMs: 30_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, concurrency: 5, cpus: 1, memoryMb: 1024, engine } });
    client = p.client();
    await signUp(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  /** A workspace with one upload app; the upload starts its build. */
  async function start(version: string, nonce: string) {
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const res = await client.post(apps, { name: `rm ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 128 });
    expect(res.status).toBe(201);
    const app = res.body as { id: string; url: string };
    const up = await client.request('POST', `${apps}/${app.id}/deployments/upload`, { raw: zipOf(nodeSample(version, nonce)), headers: { 'content-type': 'application/zip' } });
    expect(up.status).toBe(201);
    return { ws, app, apps, deploymentId: up.body.id as string };
  }

  const settled = (s: Awaited<ReturnType<typeof start>>) =>
    waitFor(
      async () => {
        const d = (await client.get(`${s.apps}/${s.app.id}/deployments/${s.deploymentId}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? (d as { status: string; failureReason: string | null }) : null;
      },
      480_000,
      `deployment ${s.deploymentId} to finish`,
    );

  /** The deployments' statuses once none is queued any more; else null. */
  const allStarted = async (started: { apps: string; app: { id: string }; deploymentId: string }[]) => {
    const states = await Promise.all(started.map(async (s) => (await client.get(`${s.apps}/${s.app.id}/deployments/${s.deploymentId}`)).body.status as string));
    return states.every((st) => st !== 'queued') ? states : null;
  };
  const outcome = (d: { status: string; failureReason?: string | null }) => `${d.status} ${d.failureReason ?? ''}`.trim();
  /** The ingress's answer for `url` once it is 200 with `body`; else null. */
  const answering = async (url: string, body: string) => {
    const r = await p.viaIngress(url).catch(() => null);
    return r?.status === 200 && r.body === body ? r : null;
  };
  /** True once no image of these apps is left; else null. */
  const imagesGone = async (appIds: string[]) => {
    const left = await p.docker.listImages({ filters: { reference: appIds.map((id) => `slipway-app/${id}:*`) } });
    return left.length === 0 ? true : null;
  };

  it('five builds reusing cached layers go live while five workspaces built from the same layers are deleted', async () => {
    // A package.json no earlier run has built: the first five make the dependency layers the second five reuse.
    const nonce = `removal ${randomBytes(4).toString('hex')}`;
    const first = await Promise.all([1, 2, 3, 4, 5].map((i) => start(`a${i}`, nonce)));
    expect((await Promise.all(first.map(settled))).map((d) => d.status)).toEqual(['live', 'live', 'live', 'live', 'live']);

    const second = await Promise.all([1, 2, 3, 4, 5].map((i) => start(`b${i}`, nonce)));
    // The builds are under way (their logs have begun) when the deletions are asked for.
    await waitFor(
      () => allStarted(second),
      120_000,
      'the second builds to start',
    );
    const deleted = await Promise.all(first.map((s) => client.delete(`/v1/workspaces/${s.ws.id}`)));
    expect(deleted.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

    const done = await Promise.all(second.map(settled));
    expect(done.map(outcome)).toEqual(['live', 'live', 'live', 'live', 'live']);
    await Promise.all(second.map((s, i) => waitFor(() => answering(s.app.url, `node b${i + 1} 1m\n`), 30_000, `${s.app.url} to answer`)));
    // And the deleted workspaces' images are gone once the builds let their removal through.
    await waitFor(
      () => imagesGone(first.map((s) => s.app.id)),
      240_000,
      'the deleted workspaces’ images to be removed',
    );
  });
});
