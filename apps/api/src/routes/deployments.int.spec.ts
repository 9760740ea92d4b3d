import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(180_000);

describe('image apps end to end: deploy, ingress through Caddy, variables, stop/start, rollback, failures (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string; slug: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'deploy', readyTimeoutMs: 6_000, stopGraceMs: 3_000 });
    client = p.client();
    await signUp(client);
  });

  // A workspace per test: the trial plan holds ten apps of the minimum size.
  beforeEach(async () => {
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
        return ['live', 'crashed', 'failed', 'cancelled'].includes(d.status) ? d : null;
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

  const appState = (appId: string, status: string) =>
    waitFor(async () => {
      const a = (await client.get(`${appsPath()}/${appId}`)).body;
      return a.status === status ? a : null;
    }, 30_000, `app ${appId} to be ${status}`);

  it('variables: secrets sealed and never returned; a restart applies the new values (decision 0027-1), and so does the next deployment', async () => {
    const app = await newApp(p.images.v1);
    const env = `${appsPath()}/${app.id}/env`;
    let res = await client.put(env, { variables: [{ key: 'GREETING', value: 'hello' }, { key: 'TOKEN', value: 's3cret', secret: true }] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { key: 'GREETING', value: 'hello', secret: false, updatedAt: expect.any(String) },
      { key: 'TOKEN', value: null, secret: true, updatedAt: expect.any(String) },
    ]);
    const stored = await p.db.envVar.findUnique({ where: { appId_key: { appId: app.id, key: 'TOKEN' } } });
    expect(stored!.value).not.toContain('s3cret');

    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'hello', '/env/GREETING');
    await served(app.url, 's3cret', '/env/TOKEN');

    // A secret sent as "" keeps its value; keys left out are removed.
    res = await client.put(env, { variables: [{ key: 'GREETING', value: 'changed' }, { key: 'TOKEN', value: '', secret: true }] });
    expect(res.status).toBe(200);
    expect((await client.get(env)).body.data.map((v: { key: string }) => v.key)).toEqual(['GREETING', 'TOKEN']);

    const before = (await client.get(`${appsPath()}/${app.id}`)).body.runningSince;
    expect((await client.post(`${appsPath()}/${app.id}/restart`)).status).toBe(200);
    await waitFor(async () => (await client.get(`${appsPath()}/${app.id}`)).body.runningSince !== before, 30_000, 'the restart');
    // The restart recreated the container with the current variables; the secret kept its value.
    await served(app.url, 'changed', '/env/GREETING');
    await served(app.url, 's3cret', '/env/TOKEN');

    res = await client.put(env, { variables: [{ key: 'GREETING', value: 'changed' }, { key: 'TOKEN', value: '', secret: true }, { key: 'EXTRA', value: 'x' }] });
    expect(res.status).toBe(200);
    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'x', '/env/EXTRA');
    await served(app.url, 'changed', '/env/GREETING');
    await served(app.url, 's3cret', '/env/TOKEN');

    // Invalid sets: a bad key, a repeated key.
    expect((await client.put(env, { variables: [{ key: '1BAD', value: 'x' }] })).body.error.code).toBe('validation_failed');
    const dup = await client.put(env, { variables: [{ key: 'A', value: 'x' }, { key: 'A', value: 'y' }] });
    expect(dup.status).toBe(400);
  });

  it('stop takes the route offline and keeps the reservation; start brings it back', async () => {
    const app = await newApp(p.images.v1);
    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');
    const usage = (await client.get(`/v1/workspaces/${ws.id}/plan`)).body.usage;

    const stop = await client.post(`${appsPath()}/${app.id}/stop`);
    expect(stop.status).toBe(200);
    expect(stop.body.desiredState).toBe('stopped');
    await appState(app.id, 'stopped');
    expect((await p.viaIngress(app.url)).status).toBe(404);
    expect((await client.get(`/v1/workspaces/${ws.id}/plan`)).body.usage).toEqual(usage);

    expect((await client.post(`${appsPath()}/${app.id}/start`)).status).toBe(200);
    await appState(app.id, 'running');
    await served(app.url, 'v1\n');
  });

  it('a deployment whose container never listens fails with the reason and last lines; the old one serves throughout, then a good one rolls out without a failed request', async () => {
    const app = await newApp(p.images.v1);
    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');

    const answers: { status: number; body: string }[] = [];
    let looping = true;
    const loop = (async () => {
      while (looping) {
        answers.push(await p.viaIngress(app.url).catch((e: Error) => ({ status: 0, body: e.message })));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      const bad = await settled(app.id, (await deploy(app.id, { image: p.images.silent })).id);
      expect(bad.status).toBe('failed');
      expect(bad.failureReason).toMatch(/did not answer on its port/);
      const log = (await client.get(`${appsPath()}/${app.id}/deployments/${bad.id}/logs`)).body;
      expect(log.done).toBe(true);
      expect(log.data.map((l: { text: string }) => l.text)).toContain('starting, but never listening');
      const after = (await client.get(`${appsPath()}/${app.id}`)).body;
      expect(after).toMatchObject({ status: 'running', currentDeployment: { status: 'live', image: p.images.v1 } });

      const good = await settled(app.id, (await deploy(app.id, { image: p.images.v2 })).id);
      expect(good.status).toBe('live');
      await served(app.url, 'v2\n');
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      looping = false;
      await loop;
    }
    expect(answers.length).toBeGreaterThan(50);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.body))).toEqual(new Set(['v1\n', 'v2\n']));
  });

  it('a good deploy serves its new version as soon as it answers, the previous one kept warm until its settle window has passed, with 0 failed requests under load; a rollback to a release that ran skips the window (decision 0038)', async () => {
    const app = await newApp(p.images.v1);
    const d1 = await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');
    const containersOf = async (deploymentId: string) => (await p.docker.listContainers({ all: true, filters: { label: [`slipway.deployment=${deploymentId}`] } })).map((c) => c.State);
    const logOf = async (deploymentId: string) => ((await client.get(`${appsPath()}/${app.id}/deployments/${deploymentId}/logs`)).body.data as { text: string }[]).map((l) => l.text).join('\n');

    const answers: { status: number; body: string }[] = [];
    let looping = true;
    const loop = (async () => {
      while (looping) {
        answers.push(await p.viaIngress(app.url).catch((e: Error) => ({ status: 0, body: e.message })));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const figures: string[] = [];
    try {
      const t0 = Date.now();
      const d2 = await deploy(app.id, { image: p.images.v2 });
      await served(app.url, 'v2\n');
      figures.push(`deploy → first v2 answer ${Date.now() - t0} ms`);
      // The previous release still runs behind the route (its window is 3 s): the new one serves already.
      expect(await containersOf(d1.id)).toEqual(['running']);
      expect((await settled(app.id, d2.id)).status).toBe('live');
      expect(await logOf(d2.id)).toMatch(/stays behind it until it has kept running and answering for 3\.0 s/);
      // Once the window has passed, the previous container is retired (SIGTERM, then removed).
      await waitUntil(() => containersOf(d1.id), (states) => states.length === 0, 30_000, 'the previous container to be retired after the window');

      // v1 ran past its window on this server: a rollback to it needs none, and v2 is retired at once.
      const t1 = Date.now();
      const rb = await client.post(`${appsPath()}/${app.id}/deployments/${d1.id}/rollback`);
      expect(rb.status).toBe(201);
      await served(app.url, 'v1\n');
      figures.push(`rollback → first v1 answer ${Date.now() - t1} ms`);
      expect((await settled(app.id, rb.body.id)).status).toBe('live');
      const rbLog = await logOf(rb.body.id);
      expect(rbLog).toMatch(/already passed a settle window on this server: no settle window for this rollback/);
      expect(rbLog).toMatch(/Route .* → the new container\n/);
      expect(rbLog).toMatch(/Stopping the previous container/);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      looping = false;
      await loop;
      console.log(`warm rollout under load: ${answers.length} requests, ${answers.filter((a) => a.status !== 200).length} failed; ${figures.join('; ')}`);
    }
    expect(answers.length).toBeGreaterThan(100);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.body))).toEqual(new Set(['v1\n', 'v2\n']));
    expect((await client.get(`${appsPath()}/${app.id}`)).body).toMatchObject({ status: 'running', currentDeployment: { status: 'live', source: 'rollback', image: p.images.v1 } });
  });

  it('a rollback to the release still warm behind the route takes the route back to that container at once, then moves it to its own; with other variables it does not; 0 failed requests', async () => {
    const app = await newApp(p.images.v1);
    const d1 = await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');
    const containersOf = async (deploymentId: string) => (await p.docker.listContainers({ all: true, filters: { label: [`slipway.deployment=${deploymentId}`] } })).map((c) => c.State);
    const logOf = async (deploymentId: string) => ((await client.get(`${appsPath()}/${app.id}/deployments/${deploymentId}/logs`)).body.data as { text: string }[]).map((l) => l.text).join('\n');
    const gone = (deploymentId: string) => waitUntil(() => containersOf(deploymentId), (states) => states.length === 0, 30_000, `the container of ${deploymentId} to be retired`);

    const answers: { status: number; body: string }[] = [];
    let looping = true;
    const loop = (async () => {
      while (looping) {
        answers.push(await p.viaIngress(app.url).catch((e: Error) => ({ status: 0, body: e.message })));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const figures: string[] = [];
    try {
      const d2 = await deploy(app.id, { image: p.images.v2 });
      await served(app.url, 'v2\n');
      // v1's container runs warm behind v2 for v2's settle window (3 s): the rollback takes the route back to it at once.
      const t0 = Date.now();
      const rb = await client.post(`${appsPath()}/${app.id}/deployments/${d1.id}/rollback`);
      expect(rb.status).toBe(201);
      await served(app.url, 'v1\n');
      figures.push(`rollback to the warm release → first v1 answer ${Date.now() - t0} ms`);
      expect((await settled(app.id, rb.body.id)).status).toBe('live');
      const rbLog = await logOf(rb.body.id);
      expect(rbLog).toMatch(new RegExp(`Route \\S+ → the container of deployment ${d1.id} \\(this image and environment, still running warm\\) while this rollback's container starts`));
      expect(rbLog).toMatch(/Route .* → the new container\n/);
      // v1's /app was read from its image once (d1): the rollback seeds the project folder from this server's copy.
      expect(rbLog).toMatch(/Project folder seeded from the image's \/app \(this server's copy of it\)/);
      await served(app.url, 'seeded by v1\n', '/file/seed.txt');
      // Then its own container serves alone: the warm one and the release rolled back from are retired.
      await gone(d1.id);
      await gone(d2.id);
      expect(await containersOf(rb.body.id)).toEqual(['running']);

      // The same over a release warm behind another, with a variable changed since: its container would answer with the
      // old value, so the rollback starts its own before the route moves.
      const d3 = await deploy(app.id, { image: p.images.v2 });
      await served(app.url, 'v2\n');
      expect((await client.put(`${appsPath()}/${app.id}/env`, { variables: [{ key: 'GREETING', value: 'changed' }] })).status).toBe(200);
      const rb2 = await client.post(`${appsPath()}/${app.id}/deployments/${rb.body.id}/rollback`);
      expect(rb2.status).toBe(201);
      expect((await settled(app.id, rb2.body.id)).status).toBe('live');
      await served(app.url, 'changed', '/env/GREETING');
      expect(await logOf(rb2.body.id)).not.toMatch(/still running warm/);
      await gone(d3.id);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      looping = false;
      await loop;
      console.log(`rollbacks to a warm release under load: ${answers.length} requests, ${answers.filter((a) => a.status !== 200).length} failed; ${figures.join('; ')}`);
    }
    expect(answers.length).toBeGreaterThan(100);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.body))).toEqual(new Set(['v1\n', 'v2\n']));
  });

  it('rollback serves the earlier version without a build; a pruned image is 409 image_unavailable', async () => {
    const app = await newApp(p.images.v1);
    const d1 = await settled(app.id, (await deploy(app.id)).id);
    const d2 = await settled(app.id, (await deploy(app.id, { image: p.images.v2 })).id);
    await served(app.url, 'v2\n');
    expect((await client.get(`${appsPath()}/${app.id}/deployments/${d1.id}`)).body.status).toBe('superseded');

    const rb = await client.post(`${appsPath()}/${app.id}/deployments/${d1.id}/rollback`);
    expect(rb.status).toBe(201);
    expect(rb.body).toMatchObject({ source: 'rollback', rollbackOf: d1.id, image: p.images.v1, number: 3 });
    expect((await settled(app.id, rb.body.id)).status).toBe('live');
    await served(app.url, 'v1\n');
    const log = (await client.get(`${appsPath()}/${app.id}/deployments/${rb.body.id}/logs`)).body.data.map((l: { text: string }) => l.text);
    expect(log.join('\n')).toMatch(/no build/);
    expect(log.join('\n')).not.toMatch(/Pulling/);

    // History: newest first, a page at a time.
    const page1 = (await client.get(`${appsPath()}/${app.id}/deployments?limit=2`)).body;
    expect(page1.data.map((d: { number: number }) => d.number)).toEqual([3, 2]);
    const page2 = (await client.get(`${appsPath()}/${app.id}/deployments?limit=2&cursor=${page1.nextCursor}`)).body;
    expect(page2).toMatchObject({ data: [{ id: d1.id, number: 1 }], nextCursor: null });
    expect((await client.get(`${appsPath()}/${app.id}/deployments?cursor=nope`)).body.error.code).toBe('invalid_cursor');
    expect((await client.get(`${appsPath()}/${app.id}/deployments?cursor=${'a'.repeat(201)}`)).status).toBe(400);
    expect((await client.get(`${appsPath()}/${app.id}/deployments?limit=101`)).body.error.code).toBe('validation_failed');
    expect((await client.get(`${appsPath()}/${app.id}/deployments?limit=0`)).status).toBe(400);

    // Once the image is gone (pruned), a rollback to it is refused.
    await p.db.deployment.update({ where: { id: d2.id }, data: { imageAvailable: false } });
    const gone = await client.post(`${appsPath()}/${app.id}/deployments/${d2.id}/rollback`);
    expect(gone.status).toBe(409);
    expect(gone.body.error.code).toBe('image_unavailable');
  });

  it('cancel: a queued deployment is cancelled and never rolled out; a finished one is 409', async () => {
    const app = await newApp(p.images.v1);
    const live = await settled(app.id, (await deploy(app.id)).id);
    const agentWorker = p.worker.pool.workers.find((w) => w.name === 'agent')!;
    await agentWorker.pause();
    try {
      const queued = await deploy(app.id, { image: p.images.v2 });
      const res = await client.post(`${appsPath()}/${app.id}/deployments/${queued.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: queued.id, status: 'cancelled' });
    } finally {
      await agentWorker.resume();
    }
    const again = await client.post(`${appsPath()}/${app.id}/deployments/${live.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('deployment_not_cancellable');
    await new Promise((r) => setTimeout(r, 1_000));
    await served(app.url, 'v1\n');
  });

  it('runtime logs of the app in chunks (phase runtime)', async () => {
    const app = await newApp(p.images.v1);
    await settled(app.id, (await deploy(app.id)).id);
    const chunk = await waitUntil(async () => (await client.get(`${appsPath()}/${app.id}/logs`)).body, (c) => c.data.length > 0, 10_000, 'runtime logs');
    expect(chunk.data[0]).toMatchObject({ seq: 1, phase: 'runtime', text: 'listening on 8080 as v1' });
    expect(chunk.done).toBe(true);
    const empty = (await client.get(`${appsPath()}/${app.id}/logs?after=${chunk.nextAfter}`)).body;
    expect(empty).toMatchObject({ data: [], nextAfter: chunk.nextAfter, done: true });
  });

  it('a container that exits on its own after going live shows crashed (app and deployment) with exit code, restarts and its last lines', async () => {
    const res = await client.post(appsPath(), { name: `crashy ${randomBytes(2).toString('hex')}`, kind: 'worker', source: 'image', image: p.images.crashLater, memoryMb: 128 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: null, subdomain: null, port: null });
    // It keeps running past the settle window, so it goes live; it exits 8 s after its start.
    const d = await settled(res.body.id, (await deploy(res.body.id)).id);
    expect(`${d.status}: ${d.failureReason}`).toMatch(/^(live|crashed): /);
    const crashed = await appState(res.body.id, 'crashed');
    expect(crashed.statusDetail).toMatchObject({ exitCode: 3, restarts: expect.any(Number), message: expect.stringMatching(/code 3/) });
    expect(crashed.statusDetail.tail).toMatch(/boom: giving up/);
    // Within a minute of going live: reported on the deployment too, with its last lines in the deployment's log.
    const release = await waitUntil(async () => (await client.get(`${appsPath()}/${res.body.id}/deployments/${d.id}`)).body, (r) => r.status === 'crashed', 30_000, 'the deployment to be crashed');
    expect(release.failureReason).toMatch(/^The container exited on its own with code 3 \d+ s after going live$/);
    // The crash watch writes the deployment's lines just after its status: a client polling the log sees them.
    const log = await waitUntil(
      async () => (await client.get(`${appsPath()}/${res.body.id}/deployments/${d.id}/logs`)).body.data.map((l: { text: string }) => l.text) as string[],
      (lines) => lines.includes(`Crashed: ${release.failureReason}`),
      10_000,
      'the crash in the deployment log',
    );
    expect(log).toEqual(expect.arrayContaining([`Crashed: ${release.failureReason}`, 'boom: giving up']));
    expect((await client.get(`${appsPath()}/${res.body.id}`)).body.currentDeployment).toMatchObject({ id: d.id, status: 'crashed' });
  });

  it('routes come back after the ingress loses them (Caddy its config, HAProxy its map) and after the agent restarts', async () => {
    const app = await newApp(p.images.v1);
    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');
    // What a restart of the proxy holding the app routes does: Caddy's bootstrap config again, or HAProxy's map lost.
    await p.dropAllRoutes();
    expect((await p.viaIngress(app.url)).status).toBe(404);
    await served(app.url, 'v1\n');

    await p.agent.restart();
    await served(app.url, 'v1\n');
    // And the control plane's sync puts back what the agent was told to forget.
    await p.dropRoute(app.id);
    // (Right after its restart the agent may not answer yet: a skipped server is tried again next round.)
    await waitFor(async () => (await p.worker.services.routing.syncAllRoutes()).nodes === 1, 15_000, 'a sync that reaches the agent');
    await served(app.url, 'v1\n');
  });

  it('delete frees the quota and leaves no container, image, route or folder behind', async () => {
    const app = await newApp(p.images.v1);
    await settled(app.id, (await deploy(app.id)).id);
    await served(app.url, 'v1\n');
    const before = (await client.get(`/v1/workspaces/${ws.id}/plan`)).body.usage;
    expect((await client.delete(`${appsPath()}/${app.id}`)).body).toEqual({ ok: true });
    expect((await client.get(`${appsPath()}/${app.id}`)).status).toBe(404);
    const after = (await client.get(`/v1/workspaces/${ws.id}/plan`)).body.usage;
    expect(after.memoryMb).toBe(before.memoryMb - 128);
    const leftOnServer = async () => ({
      containers: (await p.docker.listContainers({ all: true, filters: { label: [`slipway.app=${app.id}`] } })).length,
      images: (await p.docker.listImages({ filters: { reference: [`slipway-app/${app.id}:*`] } })).length,
      folders: await access(path.join(p.agent.dataDir, 'volumes', app.id)).then(() => 1, () => 0),
    });
    await waitUntil(leftOnServer, (left) => left.containers + left.images + left.folders === 0, 30_000, 'the app to be gone from the server');
    expect((await p.viaIngress(app.url)).status).toBe(404);
    // Its name is free again.
    expect((await client.delete(`${appsPath()}/${app.id}`)).status).toBe(404);
  });

  it('answers the error codes of apps and deployments', async () => {
    const app = await newApp(p.images.v1);
    for (const action of ['start', 'restart']) {
      const r = await client.post(`${appsPath()}/${app.id}/${action}`);
      expect([r.status, r.body.error.code]).toEqual([409, 'app_not_deployed']);
    }
    const big = await client.post(appsPath(), { name: 'too big', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 4096 });
    expect([big.status, big.body.error.code]).toEqual([402, 'quota_exceeded']);
    const small = await client.post(appsPath(), { name: 'too small', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 16 });
    expect([small.status, small.body.error.code]).toEqual([400, 'validation_failed']);
    const noImage = await client.post(appsPath(), { name: 'no image', kind: 'web', source: 'image', memoryMb: 128 });
    expect(noImage.body.error.details).toEqual([{ field: '/image', message: 'is required when source is image' }]);
    const taken = await client.post(appsPath(), { name: (await client.get(`${appsPath()}/${app.id}`)).body.name, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'name_taken']);
    const resize = await client.patch(`${appsPath()}/${app.id}`, { size: { memoryMb: 4096 } });
    expect([resize.status, resize.body.error.code]).toEqual([402, 'quota_exceeded']);
    const ok = await client.patch(`${appsPath()}/${app.id}`, { size: { memoryMb: 192 }, port: 8080 });
    expect(ok.body).toMatchObject({ memoryMb: 192, port: 8080 });
    const unknown = await client.post(`${appsPath()}/${app.id}/deployments`, { imag: 'x' });
    expect(unknown.body.error.code).toBe('validation_failed');
    expect((await client.get(`${appsPath()}/00000000-0000-7000-8000-000000000000`)).status).toBe(404);
    expect((await client.get(`${appsPath()}/${app.id}/deployments/00000000-0000-7000-8000-000000000000`)).status).toBe(404);
  });
});
