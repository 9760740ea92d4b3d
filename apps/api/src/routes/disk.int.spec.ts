// Issue 21 end to end: one tenant cannot fill a server's disk. Real kernel (loop-mounted ext4 project folders), real
// Docker (read-only root, tmpfs /tmp), real Caddy, the API, the workers and an agent, as in production.
import { randomBytes, randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { zipOf } from '@slipway/testing/samples';
import { createLogger } from '@slipway/config';
import { LogRetentionService, systemClock } from '@slipway/core';
import { createJobStores } from '@slipway/db';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

const MB = 1024 * 1024;

/** Deployment n of the log-pruning case: 3 and 23 are 40 days old (23 is live, the app's current one: it keeps its log). */
const agedDeployment = (n: number, now: number) => ({
  createdAt: new Date(n === 3 || n === 23 ? now - 40 * 86_400_000 : now - (30 - n) * 60_000),
  status: n === 23 ? 'live' : 'superseded',
});

// The classic builder: the per-build disk cap is its own (BuildKit's steps are not containers the agent can measure,
// docs/decisions/0030-1), and BuildKit clips a step's output at 1 MiB before the platform's log cap would see it.
describe('disk limits: project folders, /tmp, builds, the server reserve, quota, logs (issue 21)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string; slug: string };

  beforeAll(async () => {
    // Folders measured every second: an app read shows what the metrics pipeline collected (issue 34).
    p = await startTestPlatform({ name: 'disk', readyTimeoutMs: 15_000, stopGraceMs: 2_000, build: { diskMb: 128, engine: 'classic' }, maxLogBytes: 1_000_000, metrics: { intervalMs: 1_000, folderIntervalMs: 1_000 } });
    client = p.client();
    await signUp(client);
    // One workspace (one Docker network: the machine's address pools are shared by every test run); each test's apps
    // are deleted after it, which releases their disk at once.
    ws = await createWorkspace(client);
  });

  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await client.delete(`${appsPath()}/${id}`);
  });

  afterAll(async () => {
    p?.agent.agent.disk.setReserve({ percent: 0, mb: 0 });
    await p?.close();
  });

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const newApp = async (extra: Record<string, unknown> = {}) => {
    const res = await client.post(appsPath(), { name: `disk ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, ...extra });
    expect(res.status).toBe(201);
    created.push(res.body.id);
    return res.body as { id: string; url: string; disk: { limitMb: number; usedMb: number | null } };
  };
  const deployed = async (appId: string) => {
    const res = await client.post(`${appsPath()}/${appId}/deployments`, {});
    expect(res.status).toBe(201);
    return waitFor(
      async () => {
        const d = (await client.get(`${appsPath()}/${appId}/deployments/${res.body.id}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      90_000,
      'the deployment to finish',
    );
  };
  const containerOf = async (appId: string) => {
    const [c] = await p.docker.listContainers({ filters: { label: [`slipway.app=${appId}`], status: ['running'] } });
    return p.docker.getContainer(c!.Id);
  };
  /** Runs argv in the app's running container; stdout and stderr together. */
  const exec = async (appId: string, argv: string[]) => {
    const e = await (await containerOf(appId)).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
    const stream = await e.start({ hijack: true, stdin: false });
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    await new Promise((r) => stream.on('end', r));
    // Docker's multiplexed frames: an 8-byte header before each payload.
    const all = Buffer.concat(chunks);
    let out = '';
    for (let i = 0; i + 8 <= all.length; ) {
      const size = all.readUInt32BE(i + 4);
      out += all.subarray(i + 8, i + 8 + size).toString();
      i += 8 + size;
    }
    return out;
  };
  /** The app as read once the metrics pipeline carried a folder figure of at least `mb` (a minute closes, then it is collected). */
  const collected = (appId: string, mb: number) =>
    waitUntil(
      async () => {
        await new Promise((r) => setTimeout(r, 1_000));
        await p.worker.services.metrics.collectAll();
        return (await client.get(`${appsPath()}/${appId}`)).body as { disk: { limitMb: number; usedMb: number | null; measuredAt: string | null } };
      },
      (a) => (a.disk.usedMb ?? 0) >= mb,
      150_000,
      `the folder usage of ${appId} (>= ${mb} MB) to be collected`,
    );
  const image = (appId: string) => path.join(p.agent.dataDir, 'storage', 'images', `${appId}.ext4`);
  const allocated = async (file: string) => (await stat(file)).blocks * 512;

  it('an app that writes until it cannot stops within 1 % of its folder and of /tmp; the server loses no more; the other app serves on', async () => {
    const a = await newApp();
    const b = await newApp();
    expect(a.disk).toEqual({ limitMb: 512, usedMb: 0, measuredAt: null });
    expect((await deployed(a.id)).status).toBe('live');
    expect((await deployed(b.id)).status).toBe('live');
    const before = await allocated(image(a.id));

    // The project folder: dd stops with ENOSPC at the folder's size.
    const out = await exec(a.id, ['sh', '-c', 'dd if=/dev/zero of=/app/fill bs=1M 2>&1; stat -c "size=%s" /app/fill; sync']);
    expect(out).toMatch(/No space left on device/);
    const size = Number(/size=(\d+)/.exec(out)![1]);
    expect(size).toBeGreaterThanOrEqual(0.99 * 512 * MB);
    expect(size).toBeLessThanOrEqual(1.01 * 512 * MB);
    // What the server's disk lost: the folder's image grew by what was written, no more than 1 % past the limit.
    expect((await allocated(image(a.id))) - before).toBeLessThanOrEqual(1.01 * 512 * MB);
    const got = await collected(a.id, 505);
    expect(got.disk.limitMb).toBe(512);
    expect(got.disk.usedMb).toBeLessThanOrEqual(512);
    expect(Date.parse(got.disk.measuredAt!)).toBeGreaterThan(Date.now() - 5 * 60_000);

    // /tmp: a tmpfs of its own size (64 MB), and the root file system takes nothing.
    const tmp = await exec(a.id, ['sh', '-c', 'dd if=/dev/zero of=/tmp/fill bs=1M 2>&1; stat -c "size=%s" /tmp/fill; echo x > /root-file 2>&1 || true']);
    expect(tmp).toMatch(/No space left on device/);
    const tmpSize = Number(/size=(\d+)/.exec(tmp)![1]);
    expect(tmpSize).toBeGreaterThanOrEqual(0.99 * 64 * MB);
    expect(tmpSize).toBeLessThanOrEqual(1.01 * 64 * MB);
    expect(tmp).toMatch(/Read-only file system/);

    // The other app of the workspace still answers through Caddy, and still writes.
    expect(await p.viaIngress(b.url)).toEqual({ status: 200, body: 'v1\n' });
    expect(await exec(b.id, ['sh', '-c', 'dd if=/dev/zero of=/app/ok bs=1M count=10 2>&1 && echo written'])).toMatch(/written/);
  });

  it('a larger size keeps the folder’s files; a smaller one is refused; the files API refuses a write past the limit and keeps the old file', async () => {
    const app = await newApp();
    expect((await deployed(app.id)).status).toBe('live');
    await exec(app.id, ['sh', '-c', 'head -c 300000000 /dev/urandom > /app/keep.bin; sha256sum /app/keep.bin > /app/keep.sha']);
    const sha = (await exec(app.id, ['cat', '/app/keep.sha'])).split(' ')[0];

    // Full: the files API answers 413 disk_quota_exceeded and the file it would have replaced stays.
    await exec(app.id, ['sh', '-c', 'dd if=/dev/zero of=/app/fill bs=1M 2>/dev/null; true']);
    const files = `${appsPath()}/${app.id}/files/content?path=seed.txt`;
    const refused = await client.request('PUT', files, { raw: randomBytes(2 * MB), headers: { 'content-type': 'application/octet-stream' } });
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('disk_quota_exceeded');
    expect((await client.get(files)).text).toBe('seeded by v1\n');

    expect((await client.patch(`${appsPath()}/${app.id}`, { size: { diskMb: 256 } })).status).toBe(400);
    const grown = await client.patch(`${appsPath()}/${app.id}`, { size: { diskMb: 1024 } });
    expect(grown.status).toBe(200);
    expect(grown.body.disk.limitMb).toBe(1024);
    // Applied at the next deployment: the folder grows with its files kept.
    expect((await deployed(app.id)).status).toBe('live');
    expect(await exec(app.id, ['sha256sum', '/app/keep.bin'])).toContain(sha);
    expect(await exec(app.id, ['sh', '-c', 'dd if=/dev/zero of=/app/more bs=1M count=400 2>&1 && echo written'])).toMatch(/written/);
    // 300 MB kept, the ~212 MB that filled the old size, 400 MB more (as the metrics pipeline collects it).
    const after = await collected(app.id, 900);
    expect(after.disk.limitMb).toBe(1024);
  });

  it('diskMb is reserved with vCPU and memory: 402 quota_exceeded with the disk detail', async () => {
    const shared = ws;
    ws = await createWorkspace(client); // nothing deployed here: no network
    // The trial plan (version 2) holds 2 GB of disk.
    const big = await client.post(appsPath(), { name: 'too big', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, diskMb: 4096 });
    expect(big.status).toBe(402);
    expect(big.body.error).toMatchObject({ code: 'quota_exceeded', details: [{ resource: 'diskMb', requested: 4096, available: 2048 }] });
    const small = await client.post(appsPath(), { name: 'too small', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, diskMb: 100 });
    expect(small.status).toBe(400);
    const a = await newApp({ diskMb: 1600 });
    expect(a.disk.limitMb).toBe(1600);
    const over = await client.post(appsPath(), { name: 'one more', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(over.status).toBe(402);
    expect(over.body.error.details).toEqual([{ resource: 'diskMb', requested: 512, available: 448 }]);
    // A size update is reserved the same way.
    const grow = await client.patch(`${appsPath()}/${a.id}`, { size: { diskMb: 3000 } });
    expect(grow.status).toBe(402);
    expect(grow.body.error.details).toEqual([{ resource: 'diskMb', requested: 3000, available: 2048 }]);
    const plan = (await client.get(`/v1/workspaces/${ws.id}/plan`)).body;
    expect(plan.limits.diskMb).toBe(2048);
    expect(plan.usage.diskMb).toBe(1600);
    // Deleting the app releases its disk at once.
    expect((await client.delete(`${appsPath()}/${a.id}`)).status).toBe(200);
    expect((await client.post(appsPath(), { name: 'fits now', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, diskMb: 2048 })).status).toBe(201);
    ws = shared;
  });

  it('below the server reserve a deployment is refused with 503 server_disk_low naming the server, and goes through once room is back', async () => {
    const app = await newApp();
    const node = p.agent.target.name!;
    p.agent.agent.disk.setReserve({ percent: 100, mb: 100_000_000 });
    await p.worker.services.nodes.checkHealth();
    try {
      const refused = await client.post(`${appsPath()}/${app.id}/deployments`, {});
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('server_disk_low');
      expect(refused.body.error.message).toContain(node);
      const row = await p.db.node.findFirst({ where: { name: node } });
      expect(row!.diskFreeMb!).toBeLessThan(row!.diskReserveMb!);
    } finally {
      p.agent.agent.disk.setReserve({ percent: 0, mb: 0 });
      await p.worker.services.nodes.checkHealth();
    }
    expect(await deployed(app.id)).toMatchObject({ status: 'live', failureReason: null });
  });

  it('a build that writes past its disk cap fails with a sentence saying so', async () => {
    const res = await client.post(appsPath(), { name: 'big build', kind: 'web', source: 'upload', memoryMb: 128 });
    created.push(res.body.id);
    const up = await client.request('POST', `${appsPath()}/${res.body.id}/deployments/upload`, {
      raw: zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${randomUUID()} && dd if=/dev/zero of=/big bs=1M count=400 && sleep 5\nCMD ["node"]\n` }),
      headers: { 'content-type': 'application/zip' },
    });
    expect(up.status).toBe(201);
    const done = await waitUntil(async () => (await client.get(`${appsPath()}/${res.body.id}/deployments/${up.body.id}`)).body, (d) => ['live', 'failed'].includes(d.status), 120_000, 'the build to finish');
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatch(/The build wrote more than 128 MB to disk/);
  });

  it('a build printing a million lines keeps the log cap and says so in a last line', async () => {
    const res = await client.post(appsPath(), { name: 'noisy build', kind: 'web', source: 'upload', memoryMb: 128 });
    created.push(res.body.id);
    const up = await client.request('POST', `${appsPath()}/${res.body.id}/deployments/upload`, {
      // A marker of its own: a cached layer would print nothing.
      raw: zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${randomUUID()} && seq 1 1000000\nRUN false\n` }),
      headers: { 'content-type': 'application/zip' },
    });
    expect(up.status).toBe(201);
    // Polled gently: the in-process workers are busy with a million lines meanwhile.
    const done = await waitUntil(
      async () => {
        await new Promise((r) => setTimeout(r, 500));
        return (await client.get(`${appsPath()}/${res.body.id}/deployments/${up.body.id}`).catch(() => null))?.body;
      },
      (d) => ['failed', 'live'].includes(d?.status),
      240_000,
      'the noisy build to finish',
    );
    expect(done).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/"RUN false" failed \(exit code 1\)/) });
    const rows = await p.db.deploymentLogLine.findMany({ where: { deploymentId: up.body.id }, orderBy: { seq: 'asc' } });
    // Each row counted as its text and 32 bytes of row: at most 1 MB, at most ~30,000 rows of a million lines.
    const bytes = rows.reduce((n, r) => n + Buffer.byteLength(r.text) + 32, 0);
    expect(bytes).toBeLessThanOrEqual(1_000_000);
    expect(rows.length).toBeLessThan(31_000);
    expect(rows.at(-1)!.text).toMatch(/^… \d+ more lines \(\d+\.\d MB\) dropped: a deployment keeps at most 1\.0 MB of build and deploy log$/);
  });

  it('pruning removes the logs of deployments past the newest 20 of an app and past 30 days, never the current one', async () => {
    const app = await newApp();
    const now = Date.now();
    const ids: string[] = [];
    for (let n = 1; n <= 23; n++) {
      const id = randomUUID();
      ids.push(id);
      await p.db.deployment.create({ data: { id, workspaceId: ws.id, appId: app.id, number: n, source: 'image', cpuMillis: 100, memoryMb: 128, ...agedDeployment(n, now) } });
      await p.db.deploymentLogLine.createMany({ data: [1, 2].map((seq) => ({ deploymentId: id, seq, phase: 'build', text: `line ${seq} of ${n}` })) });
    }
    await p.db.app.update({ where: { id: app.id }, data: { currentDeploymentId: ids[22] } });
    const retention = new LogRetentionService({ store: createJobStores(p.db).logRetention, keepDeployments: 20, keepDays: 30, clock: systemClock, logger: createLogger('disk-test', 'silent') });
    expect(await retention.prune()).toMatchObject({ deployments: 3, lines: 6 });
    const left = await p.db.deploymentLogLine.groupBy({ by: ['deploymentId'], where: { deploymentId: { in: ids } } });
    const kept = new Set(left.map((r) => r.deploymentId));
    // Gone: numbers 1 and 2 (past the newest 20), and 3 (40 days old). Kept: 4–22, and 23 (current, though old).
    expect(ids.filter((id) => !kept.has(id))).toEqual([ids[0], ids[1], ids[2]]);
    expect(kept.has(ids[22]!)).toBe(true);
    expect(await retention.prune()).toMatchObject({ lines: 0 });
  });
});
