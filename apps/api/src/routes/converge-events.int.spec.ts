import { randomBytes } from 'node:crypto';
import { LABELS } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { inNetwork, TEST_DATABASE_IMAGES } from '@slipway/testing/databases';
import { quiet, type AppView } from '@slipway/testing/converge';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

// Issue 27: a container stopped, killed or removed behind the platform's back is an event, not something the next
// 30-s pass finds: the status says so within 2 s (never `running` while nothing runs for longer) and the app or
// database serves again within 5 s. No pass runs here (the test platform schedules none): only events repair.
// The figures are the issue's; asserted with slack (a loaded machine), measured in bench/ by the agent half.
const HONEST_SLACK_MS = 3_500;
const SERVING_SLACK_MS = 10_000;

type Behind = 'docker stop' | 'docker kill' | 'docker rm -f';

describe('container events: honest status and repair within seconds', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'converge-events', readyTimeoutMs: 10_000, stopGraceMs: 2_000 });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const behind = async (how: Behind, containerId: string) => {
    const c = p.docker.getContainer(containerId);
    if (how === 'docker stop') await c.stop({ t: 1 });
    if (how === 'docker kill') await c.kill();
    if (how === 'docker rm -f') await c.remove({ force: true });
  };
  const running = async (label: string) =>
    (await p.docker.listContainers({ filters: { label: [label], status: ['running'] } }));

  /**
   * Polls the status the API shows and what runs on the engine every 100 ms until `serving` answers: the longest the
   * status said `running` while nothing ran, and how long until it served again.
   */
  async function watch(read: () => Promise<string>, label: string, serving: () => Promise<boolean>, ms: number) {
    const t0 = Date.now();
    let lying: number | null = null;
    let longestLieMs = 0;
    const statuses: string[] = [];
    for (;;) {
      const [status, runs] = await Promise.all([read(), running(label).then((l) => l.length > 0)]);
      if (statuses.at(-1) !== status) statuses.push(status);
      const now = Date.now();
      if (status === 'running' && !runs) lying ??= now;
      else lying = null;
      if (lying !== null) longestLieMs = Math.max(longestLieMs, now - lying);
      if (status === 'running' && runs && (await serving())) return { longestLieMs, servingAfterMs: now - t0, statuses };
      if (now - t0 > ms) return { longestLieMs, servingAfterMs: Infinity, statuses };
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  describe('an app', () => {
    let app: AppView;

    beforeAll(async () => {
      const res = await client.post(appsPath(), { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
      expect(res.status).toBe(201);
      app = res.body as AppView;
      expect((await client.post(`${appsPath()}/${app.id}/deployments`, { image: p.images.v1 })).status).toBe(201);
      await waitFor(async () => ((await client.get(`${appsPath()}/${app.id}`)).body.status === 'running' ? true : null), 90_000, 'the app to run');
      await quiet(p, app.id);
    });

    const serves = async () => {
      const r = await p.viaIngress(app.url).catch(() => null);
      return r?.status === 200 && r.body === 'v1\n';
    };
    const servesOrNull = async () => ((await serves()) ? true : null);
    /** The answer of `path` through the ingress once it is `body`, else null. */
    const answers = async (path: string, body: string) => {
      const r = await p.viaIngress(app.url, path).catch(() => null);
      return r?.status === 200 && r.body === body ? r : null;
    };

    it.each<Behind>(['docker stop', 'docker kill', 'docker rm -f'])('%s of its container: the status is honest within 2 s and it serves again within 5 s', async (how) => {
      await waitFor(servesOrNull, 20_000, 'the app to serve');
      const [before] = await running(`${LABELS.app}=${app.id}`);
      await behind(how, before!.Id);
      const seen = await watch(async () => (await client.get(`${appsPath()}/${app.id}`)).body.status as string, `${LABELS.app}=${app.id}`, serves, 30_000);
      expect({ how, longestLieMs: seen.longestLieMs < HONEST_SLACK_MS, serving: seen.servingAfterMs < SERVING_SLACK_MS }).toEqual({ how, longestLieMs: true, serving: true });
      // The app said what happened meanwhile (crashed), unless it ran again before the first look.
      expect(seen.statuses.at(-1)).toBe('running');
      const after = (await client.get(`${appsPath()}/${app.id}`)).body as AppView & { statusDetail: unknown };
      expect(after).toMatchObject({ status: 'running', desiredState: 'running', statusDetail: null });
    });

    it('a restart applies a changed variable and size: a new container of the same image (docs/decisions/0027-1)', async () => {
      expect((await client.put(`${appsPath()}/${app.id}/env`, { variables: [{ key: 'GREETING', value: 'hello after restart' }] })).status).toBe(200);
      expect((await client.patch(`${appsPath()}/${app.id}`, { size: { memoryMb: 160 } })).status).toBe(200);
      await waitFor(servesOrNull, 20_000, 'the app to serve');
      const [before] = await running(`${LABELS.app}=${app.id}`);
      // Not before the restart: the variable is not in the running container.
      expect((await p.viaIngress(app.url, '/env/GREETING')).status).toBe(404);
      expect((await client.post(`${appsPath()}/${app.id}/restart`)).status).toBe(200);
      await waitFor(
        () => answers('/env/GREETING', 'hello after restart'),
        30_000,
        'the new variable to reach the app',
      );
      const [after] = await running(`${LABELS.app}=${app.id}`);
      expect(after!.Id).not.toBe(before!.Id);
      expect(after!.Image).toBe(before!.Image);
      expect((await p.docker.getContainer(after!.Id).inspect()).HostConfig.Memory).toBe(160 * 1024 * 1024);
      await quiet(p, app.id);
      expect((await client.get(`${appsPath()}/${app.id}`)).body).toMatchObject({ status: 'running', desiredState: 'running' });
    });
  });

  describe('a database', () => {
    let db: { id: string };
    const dbPath = () => `/v1/workspaces/${ws.id}/databases/${db.id}`;
    const status = async () => (await client.get(dbPath())).body.status as string;

    beforeAll(async () => {
      const res = await client.post(`/v1/workspaces/${ws.id}/databases`, { name: 'events', engine: 'redis', memoryMb: 64 });
      expect(res.status).toBe(201);
      db = res.body as { id: string };
      await waitFor(async () => ((await status()) === 'running' ? true : null), 90_000, 'the database to run');
    });

    const answers = async () => {
      const url = (await client.get(`${dbPath()}/connection`)).body.url as string;
      const r = await inNetwork(p.docker, { image: TEST_DATABASE_IMAGES.redis, workspaceId: ws.id, platformId: p.agent.agent.platformId, script: 'redis-cli -u "$URL" --no-auth-warning PING', env: { URL: url } });
      return r.code === 0 && r.output.includes('PONG');
    };

    it.each<Behind>(['docker stop', 'docker kill', 'docker rm -f'])('%s of its container: the status is honest within 2 s and it serves again within 5 s', async (how) => {
      const [before] = await running(`${LABELS.database}=${db.id}`);
      await behind(how, before!.Id);
      // Serving: the status is running again and a container runs (checked with a client right after).
      const seen = await watch(status, `${LABELS.database}=${db.id}`, async () => true, 30_000);
      expect({ how, longestLieMs: seen.longestLieMs < HONEST_SLACK_MS, serving: seen.servingAfterMs < SERVING_SLACK_MS }).toEqual({ how, longestLieMs: true, serving: true });
      expect(await answers()).toBe(true);
      expect((await client.get(dbPath())).body).toMatchObject({ status: 'running', statusMessage: null });
    });
  });
});
