// Issue 34: an agent started after a reboot (nothing mounted) serves every app's files. After a reboot the Docker
// engine starts the apps' containers (restart policy) before the agent runs: each binds the bare mount point of its
// project folder (empty, immutable), and a mount made there later does not reach a bind mount that exists. Here two
// real apps write a file into their folders; then, as at a reboot, the agent stops, the containers stop, the folders
// are unmounted and the engine starts the containers again on the bare mount points. App 0's code lives in its folder
// (seeded from the image): it cannot start there. App 1 keeps running without its files, as an app whose code is in
// its image does (its code is put on the bare mount point for that): it answers "missing". The agent starts: it
// mounts the running apps' folders and restarts the containers that started before their mount, so each app serves
// its file again (app 1 never would without that restart), and the Files API reads it.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { LABELS } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { waitFor } from '@slipway/testing/worker';

jest.setTimeout(300_000);

interface App {
  id: string;
  url: string;
}

/** The app's answer to GET /file/hello.txt through the ingress (its container reads /app, the project folder). */
const served = (p: TestPlatform, app: App) =>
  p
    .viaIngress(app.url, '/file/hello.txt')
    .then((r) => r.body)
    .catch(() => '');

async function appContainers(docker: Docker, appId: string): Promise<string[]> {
  return (await docker.listContainers({ all: true, filters: { label: [`${LABELS.app}=${appId}`] } })).map((c) => c.Id);
}

describe('an agent started after a reboot serves every app its files again (issue 34)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  const apps: App[] = [];
  const deployments: string[] = [];
  let filesPath: (app: App) => string;
  let whileUnmounted: string[] = [];

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'reboot' });
    client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    filesPath = (app) => `/v1/workspaces/${ws.id}/apps/${app.id}/files/content?path=hello.txt`;
    for (const i of [1, 2]) {
      const created = await client.post(`/v1/workspaces/${ws.id}/apps`, { name: `reboot ${i}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
      expect(created.status).toBe(201);
      const deployed = await client.post(`/v1/workspaces/${ws.id}/apps/${created.body.id}/deployments`, {});
      expect(deployed.status).toBe(201);
      apps.push(created.body);
      deployments.push(`/v1/workspaces/${ws.id}/apps/${created.body.id}/deployments/${deployed.body.id}`);
    }
    for (const [i, app] of apps.entries()) {
      // Live, not just answering: a first release serves from its first answer, while its settle window still runs.
      await waitFor(async () => (await client.get(deployments[i]!)).body.status === 'live', 120_000, 'the deployment to be live');
      await waitFor(async () => (await p.viaIngress(app.url).catch(() => null))?.body === 'v1\n', 120_000, 'the app to answer');
      const put = await client.request('PUT', filesPath(app), { raw: `hello from app ${i}\n`, headers: { 'content-type': 'application/octet-stream' } });
      expect(put.status).toBeLessThan(300);
      await waitFor(async () => (await served(p, app)) === `hello from app ${i}\n`, 30_000, 'the app to serve its file');
    }

    const folderOf = (app: App) => path.join(p.agent.dataDir, 'volumes', app.id);
    const code = await readFile(path.join(folderOf(apps[1]!), 'server.js'));

    // The reboot: the agent and the containers stop, nothing stays mounted, the engine starts the containers again.
    await p.agent.agent.close(1_000);
    const ids = (await Promise.all(apps.map((a) => appContainers(p.docker, a.id)))).flat();
    for (const id of ids) await p.docker.getContainer(id).stop({ t: 1 });
    await p.agent.agent.storage.unmountAll();
    await promisify(execFile)('chattr', ['-i', folderOf(apps[1]!)]);
    await writeFile(path.join(folderOf(apps[1]!), 'server.js'), code);
    for (const id of ids) await p.docker.getContainer(id).start();
    await new Promise((r) => setTimeout(r, 3_000));
    whileUnmounted = [await served(p, apps[0]!), await waitFor(() => served(p, apps[1]!), 30_000, 'app 1 to answer on its bare mount point')];
    await p.agent.restart();
  });

  afterAll(async () => {
    await p?.close();
  });

  it('before the agent starts, the containers the engine started serve nothing of their folders', () => {
    expect(whileUnmounted[0]).not.toBe('hello from app 0\n');
    expect(whileUnmounted[1]).toBe('missing\n');
  });

  it.each([0, 1])('app %i serves its file again once the agent has started', async (i) => {
    await expect(waitFor(async () => (await served(p, apps[i]!)) === `hello from app ${i}\n`, 60_000, 'the app to serve its file again')).resolves.toBe(true);
  });

  it.each([0, 1])("the Files API reads app %i's file", async (i) => {
    const res = await client.request('GET', filesPath(apps[i]!));
    expect(res.status).toBe(200);
    expect(res.text).toBe(`hello from app ${i}\n`);
  });
});
