// Partitions end honestly (issue 31, item 4): the link to server B is cut (its veth down) for 60 s while a deployment
// and a database backup run there. B's apps keep serving, the API says `unreachable` since when and refuses new
// operations there with 503 node_unreachable, nothing is deleted or moved; after the link returns, the deployment and
// the backup end with statuses that match what B really runs, within one reconcile pass.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestFleet, type FleetServer, type TestFleet } from '@slipway/testing/fleet';

jest.setTimeout(600_000);

const CUT_MS = 60_000;

describe('a partition of server B during a deployment and a backup', () => {
  let fleet: TestFleet;
  let client: ApiClient;
  let b: FleetServer;

  beforeAll(async () => {
    fleet = await startTestFleet({ servers: 2, name: 'fleet-partition', images: ['slipway/redis:7.0'] });
    client = fleet.client();
    await signUp(client);
    b = fleet.servers[1]!;
  });

  afterAll(async () => {
    await b?.mend();
    await fleet?.close();
  });

  /** GET through B's own ingress from inside B (the host cannot reach B while the link is down). */
  const servedOnB = async (host: string) => {
    const r = await b.exec(['curl', '-sS', '--max-time', '5', '-H', `Host: ${host}`, 'http://127.0.0.1/']);
    return r.stdout;
  };

  /** Polls `read` until `done` says its value is final. */
  const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number, what: string) =>
    waitFor(async () => {
      const v = await read().catch(() => null);
      return v !== null && done(v) ? { v } : null;
    }, ms, what).then((x) => x.v);
  /** What an honest end of the second deployment looks like, given its status. */
  const expectedRelease = (status: string, first: string, second: string) =>
    status === 'live' ? { status: 'live', served: 'v2\n', current: second } : { status, served: 'v1\n', current: first };
  /** A completed backup has a file; a failed one says why in a sentence. */
  const backupHonest = (b: { status: string; sizeBytes: number | null; error: string | null }) =>
    b.status === 'completed' ? (b.sizeBytes ?? 0) > 0 : /\w+ \w+/.test(b.error ?? '');

  it('keeps serving, says unreachable, refuses changes, and ends the deployment and the backup honestly', async () => {
    // A workspace on B: A cordoned while it is placed.
    await fleet.admin('cordon', 'fleet-1');
    const ws = await createWorkspace(client);
    await fleet.admin('uncordon', 'fleet-1');
    expect((await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true } })).nodeId).toBe(b.nodeId);
    const base = `/v1/workspaces/${ws.id}`;
    const app = (await client.post(`${base}/apps`, { name: `web ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: fleet.images.v1, memoryMb: 128 })).body;
    const host = new URL(app.url).host;
    const deployment = (id: string) => client.get(`${base}/apps/${app.id}/deployments/${id}`).then((r) => r.body);
    const first = (await client.post(`${base}/apps/${app.id}/deployments`, {})).body;
    await until(() => deployment(first.id), (d) => d.status === 'live', 90_000, 'the first deployment');
    const db = (await client.post(`${base}/databases`, { name: 'cache', engine: 'redis', memoryMb: 64 })).body;
    await until(() => client.get(`${base}/databases/${db.id}`).then((r) => r.body), (d) => d.status === 'running', 120_000, 'the database');
    expect(await servedOnB(host)).toBe('v1\n');

    // The second deployment and a backup are asked for, then the link goes down.
    const second = (await client.post(`${base}/apps/${app.id}/deployments`, { image: fleet.images.v2 })).body;
    const backup = (await client.post(`${base}/databases/${db.id}/backups`, {})).body;
    expect(backup.status).toBe('pending');
    const cutAt = Date.now();
    await b.cut();

    // The API sees it within a few health checks (every second here), and says since when.
    const seen = await until(() => client.get(base).then((r) => r.body), (w) => w.server.status === 'unreachable', 20_000, 'the workspace to show unreachable');
    expect(new Date(seen.server.since).getTime()).toBeGreaterThanOrEqual(cutAt - 2_000);
    // A change there is refused with a sentence, and changes nothing.
    const refused = await client.post(`${base}/apps/${app.id}/restart`, {});
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('node_unreachable');
    expect(refused.body.error.message).toMatch(/has not answered since .* Nothing was changed/);
    const refusedDb = await client.post(`${base}/databases`, { name: 'another', engine: 'redis', memoryMb: 64 });
    expect(refusedDb.body.error.code).toBe('node_unreachable');
    // Reads still answer from what the control plane knows.
    expect((await client.get(`${base}/apps/${app.id}`)).status).toBe(200);

    // B keeps serving its app all along (v1, or v2 once its rollout finished on B).
    const answers = new Set<string>();
    while (Date.now() - cutAt < CUT_MS) {
      answers.add(await servedOnB(host));
      await new Promise((r) => setTimeout(r, 2_000));
    }
    expect([...answers].filter((a) => !['v1\n', 'v2\n'].includes(a))).toEqual([]);
    // Nothing was deleted or placed elsewhere meanwhile.
    expect((await fleet.db.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { nodeId: true, deletedAt: true } })).deletedAt).toBeNull();
    expect(await fleet.servers[0]!.docker.listContainers({ all: true, filters: { label: [`slipway.workspace=${ws.id}`] } })).toHaveLength(0);

    await b.mend();
    await until(() => client.get(base).then((r) => r.body), (w) => w.server.status === 'reachable', 30_000, 'the workspace to be reachable again');
    // The deployment and the backup end (retried, or failed with a reason)...
    const ended = await until(() => deployment(second.id), (d) => ['live', 'failed', 'crashed', 'cancelled'].includes(d.status), 240_000, 'the second deployment to end');
    const backupEnded = await until(
      () => client.get(`${base}/databases/${db.id}/backups/${backup.id}`).then((r) => r.body),
      (r) => ['completed', 'failed'].includes(r.status),
      240_000,
      'the backup to end',
    );
    // ...and after one reconcile pass every status matches what B runs.
    await fleet.worker.services.reconcile.run(`after-partition-${randomBytes(3).toString('hex')}`);
    const servedNow = (await until(() => b.viaIngress(app.url), (r) => r.status === 200, 20_000, 'the app through B')).body;
    const appNow = (await client.get(`${base}/apps/${app.id}`)).body;
    expect(appNow.status).toBe('running');
    // A release that went live keeps the previous one warm behind it for its settle window (decision 0038): one
    // container once the window and the previous one's stop grace have passed.
    const live = await until(() => b.docker.listContainers({ filters: { label: [`slipway.app=${app.id}`] } }), (l) => l.length === 1, 20_000, 'the previous release to be retired');
    expect(live).toHaveLength(1);
    // The deployment says live exactly when its release is what B serves.
    expect({ status: ended.status, served: servedNow, current: appNow.currentDeployment.id }).toEqual(expectedRelease(ended.status, first.id, second.id));
    expect(live[0]!.Labels['slipway.deployment']).toBe(appNow.currentDeployment.id);
    // The backup says completed exactly when it holds a verified file; failed with a sentence otherwise.
    expect(backupHonest(backupEnded)).toBe(true);
    const dbNow = (await client.get(`${base}/databases/${db.id}`)).body;
    expect(dbNow.status).toBe('running');
  });
});
