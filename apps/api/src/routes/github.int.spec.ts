import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { InstallStates } from '@slipway/core';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { TEST_SESSION_KEY, startTestApi, type TestApi } from '@slipway/testing/api';
import { GitRepo, installationPayload, installationRepositoriesPayload, startGithubDouble, type GithubDouble } from '@slipway/testing/github';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { nodeSample } from '@slipway/testing/samples';
import { waitFor } from '@slipway/testing/worker';
import pino from 'pino';

jest.setTimeout(300_000);

// The npm registry is reachable from build containers only with this machine's CA bundle (ENVIRONMENT.md).
const CA = '/etc/ssl/certs/ca-certificates.crt';

/** The sample Node app under `web/`, a file outside it, answering `node <version> 1m`. */
const appFiles = (version: string) => Object.fromEntries(Object.entries(nodeSample(version)).map(([k, v]) => [`web/${k}`, v]));

describe('GitHub as a source, end to end: install flow, GitHub apps, deployments, webhooks (GitHub API double, real Docker and Caddy)', () => {
  let gh: GithubDouble;
  let repo: GitRepo;
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string; slug: string };
  let repoRef: { id: number; fullName: string };
  let installation: { id: number };
  const logs: string[] = [];
  const shas: Record<string, string> = {};
  let appId = '';
  let appUrl = '';

  beforeAll(async () => {
    gh = await startGithubDouble();
    repo = await GitRepo.create();
    shas.v1 = await repo.commit({ ...appFiles('v1'), 'docs/README.md': 'docs v1\n' }, 'first version');
    repoRef = gh.addRepository('acme/shop', repo);
    installation = gh.addInstallation('acme', [repoRef.id]);
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
    p = await startTestPlatform({ name: 'github', readyTimeoutMs: 20_000, stopGraceMs: 1_000, build: { extraCaBundle: CA }, env: gh.env(), logger });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
    await gh?.close();
    await repo?.remove();
  });

  const base = () => `/v1/workspaces/${ws.id}`;
  const setup = (installationId: number | string, state: string) =>
    client.get(`/v1/github/setup?installation_id=${installationId}&state=${encodeURIComponent(state)}&setup_action=install`);
  const deployments = async () => (await client.get(`${base()}/apps/${appId}/deployments?limit=100`)).body.data as { id: string; status: string; commit: { sha: string } | null; source: string }[];
  const settled = (deploymentId: string) =>
    waitFor(
      async () => {
        const d = (await client.get(`${base()}/apps/${appId}/deployments/${deploymentId}`)).body;
        return ['live', 'failed', 'cancelled', 'superseded'].includes(d.status) ? d : null;
      },
      150_000,
      `deployment ${deploymentId} to finish`,
    );
  const logText = async (deploymentId: string) =>
    ((await client.get(`${base()}/apps/${appId}/deployments/${deploymentId}/logs?limit=1000`)).body.data as { text: string }[]).map((l) => l.text).join('\n');
  const served = (expected: string) =>
    waitFor(async () => {
      const r = await p.viaIngress(appUrl).catch(() => null);
      return r?.status === 200 && r.body === expected ? r : null;
    }, 30_000, `${appUrl} to answer ${JSON.stringify(expected)}`);
  const delivered = (deliveryId: string) =>
    waitFor(async () => {
      const row = await p.db.githubDelivery.findUnique({ where: { id: deliveryId } });
      return row && row.status !== 'queued' ? row : null;
    }, 20_000, `delivery ${deliveryId} to be handled`);
  const webhooks = () => `${p.base}/v1/github/webhooks`;
  const live = async (deploymentId: string) => {
    const d = await settled(deploymentId);
    if (d.status !== 'live') throw new Error(`deployment ${d.status}: ${d.failureReason}\n${await logText(deploymentId)}`);
    return d;
  };

  it('links an installation through the signed state only: a forged, expired or foreign state is refused', async () => {
    const url = await client.get(`${base()}/github/install-url`);
    expect(url.status).toBe(200);
    expect(url.body.url).toBe(`${gh.url}/apps/${gh.slug}/installations/new?state=${encodeURIComponent(url.body.state)}`);

    // Forged: another workspace's id in the payload, with the MAC of the real one; a state signed with another key.
    const [v, payload, mac] = (url.body.state as string).split('.');
    const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), w: '01936f3e-8a2b-7c4d-9e0f-123456789abc' })).toString('base64url');
    expect((await setup(installation.id, `${v}.${tampered}.${mac}`)).body.error.code).toBe('github_state_invalid');
    const foreign = new InstallStates('another platform').issue(ws.id, Date.now()).state;
    expect((await setup(installation.id, foreign)).status).toBe(400);
    const expired = new InstallStates(TEST_SESSION_KEY).issue(ws.id, Date.now() - 16 * 60 * 1000).state;
    const refused = await setup(installation.id, expired);
    expect([refused.status, refused.body.error.code]).toEqual([400, 'github_state_invalid']);
    // An installation GitHub does not know, with a good state.
    const unknown = await setup(999_999_999, url.body.state);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'github_installation_not_found']);

    const linked = await setup(installation.id, url.body.state);
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ workspaceId: ws.id, installation: { id: installation.id, account: { login: 'acme', type: 'Organization' }, suspended: false } });
    expect((await client.get(`${base()}/github/installations`)).body.data.map((i: { id: number }) => i.id)).toEqual([installation.id]);
    const repos = await client.get(`${base()}/github/installations/${installation.id}/repositories?perPage=10`);
    expect(repos.body).toEqual({ data: [{ id: repoRef.id, fullName: 'acme/shop', private: true, defaultBranch: 'main' }], page: 1, perPage: 10, total: 1, nextPage: null });

    // Another user's workspace can neither take the installation nor read through it.
    const other = p.client();
    await signUp(other);
    const ws2 = await createWorkspace(other);
    const state2 = (await other.get(`/v1/workspaces/${ws2.id}/github/install-url`)).body.state as string;
    const taken = await other.get(`/v1/github/setup?installation_id=${installation.id}&state=${encodeURIComponent(state2)}`);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'github_installation_taken']);
    const notHers = await other.get(`/v1/workspaces/${ws2.id}/github/installations/${installation.id}/repositories`);
    expect([notHers.status, notHers.body.error.code]).toEqual([404, 'github_installation_not_found']);
    expect((await other.get(`/v1/workspaces/${ws2.id}/github/installations`)).body.data).toEqual([]);
    // The app JWT was verified by the double with the App's public key: GitHub's answers came back.
    expect(gh.requests()).toContainEqual(expect.objectContaining({ path: `/app/installations/${installation.id}`, status: 200 }));
  });

  it('creates a GitHub app after checking it with GitHub, deploys the branch head and serves it with `commit` filled', async () => {
    const create = (github: Record<string, unknown>) =>
      client.post(`${base()}/apps`, { name: `shop ${Math.random().toString(36).slice(2, 6)}`, kind: 'web', source: 'github', memoryMb: 128, github });
    const good = { installationId: installation.id, repoFullName: 'acme/shop', branch: 'main', rootDir: 'web', autoDeploy: true, watchRootOnly: true };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...good, branch: 'nope' }, 404, 'github_branch_not_found'],
      [{ ...good, repoFullName: 'acme/elsewhere' }, 404, 'github_repository_not_found'],
      [{ ...good, installationId: 12345 }, 404, 'github_installation_not_found'],
      [{ ...good, rootDir: '../etc' }, 400, 'validation_failed'],
    ];
    for (const [github, status, code] of cases) {
      const res = await create(github);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
    }
    const app = await create(good);
    expect(app.status).toBe(201);
    expect(app.body.github).toEqual({ ...good, repoId: repoRef.id, accessLost: false, accessLostReason: null });
    appId = app.body.id;
    appUrl = app.body.url;

    const queued = await client.post(`${base()}/apps/${appId}/deployments`, {});
    expect(queued.status).toBe(201);
    expect(queued.body).toMatchObject({ source: 'github', status: 'queued', commit: { sha: shas.v1, message: 'first version', author: 'test-dev', branch: 'main' } });
    expect(queued.body.commit.url).toBe(`${gh.url}/acme/shop/commit/${shas.v1}`);
    const d = await live(queued.body.id);
    expect(d.commit.sha).toBe(shas.v1);
    await served('node v1 1m\n');
    const build = await logText(d.id);
    expect(build).toMatch(new RegExp(`Downloading acme/shop at ${shas.v1!.slice(0, 7)} from GitHub`));
    expect(build).toMatch(/Building from inside the archive's top folder acme-shop-[0-9a-f]{7}\//);
    expect(build).toMatch(/Found package-lock\.json/);
    // The archive host got no credential: the redirect was followed without the Authorization header.
    const codeload = gh.requests().filter((r) => r.path.startsWith('/_codeload/'));
    expect(codeload.length).toBeGreaterThan(0);
    expect(codeload.map((r) => [r.authorization, r.status])).toEqual(codeload.map(() => [null, 200]));
    // Commit statuses back to GitHub: pending, then success with a link to the deployment.
    await waitFor(async () => gh.statuses().filter((s) => s.sha === shas.v1).map((s) => s.state).includes('success'), 10_000, 'the success status');
    expect(gh.statuses().filter((s) => s.sha === shas.v1).map((s) => s.state)).toEqual(['pending', 'success']);
    expect(gh.statuses().find((s) => s.state === 'success')?.targetUrl).toMatch(new RegExp(`/v1/workspaces/${ws.id}/apps/${appId}/deployments/${d.id}$`));

    // PATCH re-checks the settings with GitHub; other sources take no github settings.
    const badBranch = await client.patch(`${base()}/apps/${appId}`, { github: { branch: 'nope' } });
    expect([badBranch.status, badBranch.body.error.code]).toEqual([404, 'github_branch_not_found']);
    const patched = await client.patch(`${base()}/apps/${appId}`, { github: { watchRootOnly: true, rootDir: 'web/' } });
    expect([patched.status, patched.body.github.rootDir, patched.body.github.branch]).toEqual([200, 'web', 'main']);
    const image = await client.post(`${base()}/apps`, { name: 'img', kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, github: good });
    expect([image.status, image.body.error.code]).toEqual([400, 'validation_failed']);
  });

  it('deploys a given sha (an unknown sha is 404, a malformed one 400); rollback and cancel work as for other sources', async () => {
    shas.v2 = await repo.commit(appFiles('v2'), 'second version');
    const bad = await client.post(`${base()}/apps/${appId}/deployments`, { commitSha: 'deadbeefdeadbeef' });
    expect([bad.status, bad.body.error.code]).toEqual([404, 'github_commit_not_found']);
    expect((await client.post(`${base()}/apps/${appId}/deployments`, { commitSha: 'not-a-sha' })).status).toBe(400);
    const res = await client.post(`${base()}/apps/${appId}/deployments`, { commitSha: shas.v2 });
    expect(res.status).toBe(201);
    expect(res.body.commit).toMatchObject({ sha: shas.v2, message: 'second version', branch: 'main' });
    await live(res.body.id);
    await served('node v2 1m\n');

    // Rollback works as for other sources: the image of v1, no download, no build; `commit` goes along.
    const v1 = (await deployments()).find((d) => d.commit?.sha === shas.v1)!;
    const back = await client.post(`${base()}/apps/${appId}/deployments/${v1.id}/rollback`);
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ source: 'rollback', commit: { sha: shas.v1, branch: 'main' } });
    await live(back.body.id);
    await served('node v1 1m\n');
    expect(await logText(back.body.id)).not.toMatch(/Downloading/);

    // Cancel works as for other sources: a queued GitHub deployment is cancelled and never built.
    const agentQueue = p.worker.jobs.queue('agent');
    await agentQueue.pause();
    let cancelled: { id: string };
    try {
      cancelled = (await client.post(`${base()}/apps/${appId}/deployments`, { commitSha: shas.v2 })).body;
      const res = await client.post(`${base()}/apps/${appId}/deployments/${cancelled.id}/cancel`);
      expect([res.status, res.body.status]).toEqual([200, 'cancelled']);
    } finally {
      await agentQueue.resume();
    }
    expect((await settled(cancelled.id)).status).toBe('cancelled');
    await served('node v1 1m\n');
  });

  it('webhooks: a bad signature is 401 and queues nothing; a push deploys its commit once, however often it is delivered', async () => {
    const before = (await deployments()).length;
    shas.v3 = await repo.commit(appFiles('v3'), 'third version');
    const push = await gh.pushPayload('acme/shop', { before: shas.v2!, after: shas.v3, branch: 'main', installationId: installation.id });

    const forged = await gh.deliver(webhooks(), 'push', push, { secret: 'not the secret' });
    expect([forged.status, (forged.body as { error: { code: string } }).error.code]).toEqual([401, 'invalid_signature']);
    const unsigned = await gh.deliver(webhooks(), 'push', push, { signature: '' });
    expect(unsigned.status).toBe(401);
    expect(await p.db.githubDelivery.count({ where: { id: { in: [forged.deliveryId, unsigned.deliveryId] } } })).toBe(0);

    const started = Date.now();
    const first = await gh.deliver(webhooks(), 'push', push);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect([first.status, first.body]).toEqual([202, { accepted: true, duplicate: false, event: 'push' }]);
    const again = await gh.deliver(webhooks(), 'push', push, { deliveryId: first.deliveryId });
    expect([again.status, again.body]).toEqual([202, { accepted: true, duplicate: true, event: 'push' }]);
    await delivered(first.deliveryId);
    const ofV3 = (await deployments()).filter((d) => d.commit?.sha === shas.v3);
    expect(ofV3).toHaveLength(1);
    expect((await deployments()).length).toBe(before + 1);
    await live(ofV3[0]!.id);
    await served('node v3 1m\n');
  });

  it('webhooks: a newer push supersedes the deployment an earlier push queued, before it started', async () => {
    // The deployment queue is paused (BullMQ: jobs wait, no worker takes them), so the first push's deployment stays queued.
    const agentQueue = p.worker.jobs.queue('agent');
    await agentQueue.pause();
    try {
      shas.v4 = await repo.commit(appFiles('v4'), 'fourth version');
      const a = await gh.deliver(webhooks(), 'push', await gh.pushPayload('acme/shop', { before: shas.v3!, after: shas.v4, branch: 'main', installationId: installation.id }));
      await delivered(a.deliveryId);
      shas.v5 = await repo.commit(appFiles('v5'), 'fifth version');
      const b = await gh.deliver(webhooks(), 'push', await gh.pushPayload('acme/shop', { before: shas.v4, after: shas.v5, branch: 'main', installationId: installation.id }));
      await delivered(b.deliveryId);
    } finally {
      await agentQueue.resume();
    }
    const list = await deployments();
    const v4 = list.find((d) => d.commit?.sha === shas.v4)!;
    const v5 = list.find((d) => d.commit?.sha === shas.v5)!;
    expect(v4.status).toBe('superseded');
    expect((await client.get(`${base()}/apps/${appId}/deployments/${v4.id}`)).body.failureReason).toMatch(/Superseded by a newer push/);
    await live(v5.id);
    await served('node v5 1m\n');
    expect((await settled(v4.id)).status).toBe('superseded');
  });

  it('webhooks: with watchRootOnly a push outside rootDir deploys nothing; tag pushes and other branches neither', async () => {
    const before = (await deployments()).length;
    const docs = await repo.commit({ 'docs/README.md': 'docs v2\n' }, 'docs only');
    const push = await gh.pushPayload('acme/shop', { before: shas.v5!, after: docs, branch: 'main', installationId: installation.id });
    const outside = await gh.deliver(webhooks(), 'push', push);
    expect(outside.status).toBe(202);
    expect((await delivered(outside.deliveryId)).result).toMatch(/nothing changed under web/);
    // A delivery whose job failed for good is taken again when GitHub redelivers it; a handled one is not.
    expect((await gh.deliver(webhooks(), 'push', push, { deliveryId: outside.deliveryId })).body).toMatchObject({ duplicate: true });
    await p.db.githubDelivery.update({ where: { id: outside.deliveryId }, data: { status: 'failed' } });
    expect((await gh.deliver(webhooks(), 'push', push, { deliveryId: outside.deliveryId })).body).toMatchObject({ duplicate: false });
    expect((await delivered(outside.deliveryId)).status).toBe('done');
    const tag = await gh.deliver(webhooks(), 'push', { ...push, ref: 'refs/tags/v1' });
    expect((await delivered(tag.deliveryId)).result).toMatch(/not a branch/);
    const otherBranch = await gh.deliver(webhooks(), 'push', { ...push, ref: 'refs/heads/feature', files: ['web/server.js'] });
    expect((await delivered(otherBranch.deliveryId)).result).toMatch(/no app deploys feature/);
    expect((await deployments()).length).toBe(before);
  });

  it('a repository removed from the installation sets accessLost (409); added back, it clears it', async () => {
    gh.removeRepositoryFromInstallation(installation.id, repoRef.id);
    const removed = await gh.deliver(webhooks(), 'installation_repositories', installationRepositoriesPayload('removed', installation.id, [repoRef]));
    await delivered(removed.deliveryId);
    expect((await client.get(`${base()}/apps/${appId}`)).body.github).toMatchObject({ accessLost: true, accessLostReason: expect.stringMatching(/acme\/shop was removed/) });
    const refused = await client.post(`${base()}/apps/${appId}/deployments`, {});
    expect([refused.status, refused.body.error.code]).toEqual([409, 'github_access_lost']);
    gh.addRepositoryToInstallation(installation.id, repoRef.id);
    const added = await gh.deliver(webhooks(), 'installation_repositories', installationRepositoriesPayload('added', installation.id, [repoRef]));
    await delivered(added.deliveryId);
    expect((await client.get(`${base()}/apps/${appId}`)).body.github).toMatchObject({ accessLost: false, accessLostReason: null });
  });

  it('installation deleted: the app shows accessLost with the reason and deployments answer 409', async () => {
    gh.deleteInstallation(installation.id);
    const res = await gh.deliver(webhooks(), 'installation', installationPayload('deleted', installation.id, 'acme'));
    expect(res.status).toBe(202);
    await delivered(res.deliveryId);
    const app = (await client.get(`${base()}/apps/${appId}`)).body;
    expect(app.github).toMatchObject({ accessLost: true, accessLostReason: expect.stringMatching(/uninstalled from acme/) });
    const refused = await client.post(`${base()}/apps/${appId}/deployments`, {});
    expect([refused.status, refused.body.error.code]).toEqual([409, 'github_access_lost']);
    // The app still serves its last version.
    await served('node v5 1m\n');
  });

  it('no installation token ever reaches a log, a build log or the disk of the server', async () => {
    const tokens = gh.issuedTokens();
    expect(tokens.length).toBeGreaterThan(0);
    const all = logs.join('\n');
    expect(all.length).toBeGreaterThan(0);
    for (const id of (await deployments()).map((d) => d.id)) {
      const text = await logText(id);
      for (const t of tokens) expect(text.includes(t)).toBe(false);
    }
    for (const t of tokens) expect(all.includes(t)).toBe(false);
    // Every file the agent wrote is read (an unreadable one fails the case); there must be some.
    const files = await listFiles(p.agent.dataDir);
    expect(files.length).toBeGreaterThan(0);
    const contents = await Promise.all(files.map((f) => readUnlessGone(f)));
    expect(contents.filter((c) => c !== null).length).toBeGreaterThan(0);
    for (const t of tokens) expect(files.filter((_, i) => contents[i]?.includes(t))).toEqual([]);
  });
});

describe('GitHub operations without a GitHub App configured', () => {
  let api: TestApi;
  let client: ApiClient;
  let ws: { id: string };

  beforeAll(async () => {
    api = await startTestApi();
    client = api.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('answer 503 github_not_configured, and the OpenAPI document says so', async () => {
    for (const res of [
      await client.get(`/v1/workspaces/${ws.id}/github/install-url`),
      await client.get(`/v1/workspaces/${ws.id}/github/installations`),
      await client.post(`/v1/workspaces/${ws.id}/apps`, { name: 'gh', kind: 'web', source: 'github', memoryMb: 128, github: { installationId: 1, repoFullName: 'a/b', branch: 'main' } }),
      await client.request('POST', '/v1/github/webhooks', { raw: Buffer.from('{}'), headers: { 'content-type': 'application/json' } }),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([503, 'github_not_configured']);
    }
    const doc = (await client.get('/v1/openapi.json')).body;
    expect(JSON.stringify(doc.paths['/v1/github/webhooks'].post.responses['503'])).toMatch(/github_not_configured/);
  });
});

/** Every file under `dir` small enough to be the agent's own; a folder that cannot be read fails. */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full)));
    // Project folders are loop-mounted images of hundreds of MB: what the agent itself writes is small.
    else if (e.isFile() && (await stat(full)).size < 5_000_000) out.push(full);
  }
  return out;
}

/** The bytes of `file`, or null when it went away since it was listed (nothing left on disk); any other error fails. */
async function readUnlessGone(file: string): Promise<Buffer | null> {
  return readFile(file).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
}
