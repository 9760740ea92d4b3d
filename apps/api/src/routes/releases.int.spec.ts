// Readiness a crash can't fool (issue 23, decision 0038): bad releases shipped over a good one under steady requests through Caddy.
// Each must end `failed` (never answered) or `crashed` and reverted (died inside its settle window) with a reason and the
// app's own log lines, and no request through the ingress may fail.
import { randomBytes } from 'node:crypto';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor, waitUntil } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

jest.setTimeout(300_000);

type Answer = { status: number; body: string; at?: number; ms?: number };
type Release = { image: string; status: string; failureReason: string; from: number; to: number };

/** What the request loop saw and what each bad release did, in ms from the first answer. */
function report(answers: Answer[], results: Release[]): string {
  const t0 = answers[0]?.at ?? 0;
  const bad = answers.filter((a) => a.status !== 200);
  const slowest = answers.reduce<Answer | undefined>((s, a) => (s && s.ms! >= a.ms! ? s : a), undefined);
  return (
    `bad releases: ${answers.length} requests through the ingress, ${bad.length} failed` +
    (slowest ? `; the slowest took ${slowest.ms} ms (at ${slowest.at! - t0} ms)` : '') +
    (bad.length ? ` (at ${bad.map((a) => `${a.at! - t0} ms: ${a.status || a.body}`).join(', ')})` : '') +
    `\n${results.map((r) => `  ${r.image} (${r.from - t0}..${r.to - t0} ms): ${r.status}: ${r.failureReason}`).join('\n')}`
  );
}

describe('bad releases over a good one never leave a failed request (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'releases', readyTimeoutMs: 6_000, stopGraceMs: 3_000 });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const deploy = async (appId: string, body: Record<string, unknown> = {}) => {
    const res = await client.post(`${appsPath()}/${appId}/deployments`, body);
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  // The status and, when it failed, why: a failed assertion shows the reason.
  const outcome = (d: { status: string; failureReason: string | null }) => (d.status === 'failed' ? `failed: ${d.failureReason}` : d.status);
  const settled = (appId: string, deploymentId: string) =>
    waitFor(
      async () => {
        const d = (await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}`)).body;
        return ['live', 'crashed', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      90_000,
      `deployment ${deploymentId} to finish`,
    );

  const isV1 = (a: { status: number; body: string }) => a.status === 200 && a.body === 'v1\n';
  /** Asks the ingress every 20 ms until the deployment settles: each answer with the deployment's status just after it. */
  const watchRelease = async (app: { id: string; url: string }, deploymentId: string) => {
    const seen: { status: number; body: string; deployment: string; at: number }[] = [];
    const answer = (url: string) => p.viaIngress(url).catch((e: Error) => ({ status: 0, body: e.message }));
    for (const end = Date.now() + 60_000; Date.now() < end; await new Promise((res) => setTimeout(res, 20))) {
      const r = { ...(await answer(app.url)), at: Date.now() };
      const d = (await client.get(`${appsPath()}/${app.id}/deployments/${deploymentId}`)).body as { status: string };
      seen.push({ ...r, deployment: d.status });
      if (['live', 'failed', 'crashed', 'cancelled'].includes(d.status)) return seen;
    }
    throw new Error(`deployment ${deploymentId} did not settle within 60 s`);
  };

  /** The deployment's log lines once `has` holds for them: the converge writes a revert's lines just after its record. */
  const logOnce = (appId: string, deploymentId: string, has: (lines: string[]) => boolean, what: string) =>
    waitUntil(
      async () => ((await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}/logs`)).body.data as { text: string }[]).map((l) => l.text),
      has,
      10_000,
      what,
    );

  /** The deployment once it is crashed and the app is back on `firstId` (live): a release that died inside its window. */
  const backOnFirst = async (appId: string, deploymentId: string, firstId: string) => {
    let seen = 'nothing yet';
    return waitFor(
      async () => {
        const d = (await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}`)).body;
        const a = (await client.get(`${appsPath()}/${appId}`)).body;
        seen = `deployment ${d.status} (${d.failureReason}), app ${a.status} on ${a.currentDeployment?.id}`;
        return d.status === 'crashed' && a.currentDeployment?.id === firstId && a.status === 'running' ? d : null;
      },
      60_000,
      `deployment ${deploymentId} to be crashed and the app back on ${firstId}`,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last seen: ${seen}`);
    });
  };

  it('exit at once, OOM at start, crash loop, 127.0.0.1 only, never listening: each fails with why and its log; exit 1 s and 2 s after answering: taken out of the route, crashed with why, the previous release serves again; 0 failed requests', async () => {
    const res = await client.post(appsPath(), { name: `good ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    expect(res.status).toBe(201);
    const app = res.body as { id: string; url: string };
    expect(outcome(await settled(app.id, (await deploy(app.id)).id))).toBe('live');
    expect(await p.viaIngress(app.url)).toEqual({ status: 200, body: 'v1\n' });

    const answers: Answer[] = [];
    let looping = true;
    const loop = (async () => {
      while (looping) {
        const at = Date.now();
        answers.push({ ...(await p.viaIngress(app.url).catch((e: Error) => ({ status: 0, body: e.message }))), at, ms: Date.now() - at });
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    // Releases that never answer (or die before they do) never take the route: failed, as before.
    const cases: { image: string; reason: RegExp; line: RegExp }[] = [
      { image: p.images.exitNow, reason: /^The container exited with code 0 before it answered$/, line: /nothing to do, exiting/ },
      { image: p.images.oom, reason: /^The container ran out of memory \(its limit is 128 MB\) and was killed/, line: /loading a large model/ },
      { image: p.images.crashLoop, reason: /^The container exited with code 1 before it answered$/, line: /Cannot find module 'fastify-that-is-not-installed'/ },
      { image: p.images.loopback, reason: /^The app did not answer on its port within 6 s: GET \/ on port 8080 \(any HTTP response\), last try: ECONNREFUSED$/, line: /listening on 127.0.0.1 only/ },
      { image: p.images.silent, reason: /^The app did not answer on its port within 6 s/, line: /starting, but never listening/ },
    ];
    // Releases that answer, take the route, then exit inside their settle window (decision 0038): taken out again,
    // the previous release (kept warm behind them) serves again, the deployment is crashed with why.
    const inWindow: { image: string; line: RegExp }[] = [
      { image: p.images.exit1s, line: /exiting after 1000 ms on purpose/ },
      { image: p.images.exit2s, line: /exiting after 2000 ms on purpose/ },
    ];
    const first = (await client.get(`${appsPath()}/${app.id}`)).body.currentDeployment as { id: string; number: number };
    const results: Release[] = [];
    try {
      for (const c of cases) {
        const from = Date.now();
        const d = await settled(app.id, (await deploy(app.id, { image: c.image })).id);
        results.push({ image: c.image, status: d.status, failureReason: d.failureReason, from, to: Date.now() });
        expect({ image: c.image, status: d.status }).toEqual({ image: c.image, status: 'failed' });
        expect(d.failureReason).toMatch(c.reason);
        // The deployment's log says the same, followed by the app's own last lines.
        const log = ((await client.get(`${appsPath()}/${app.id}/deployments/${d.id}/logs`)).body.data as { text: string }[]).map((l) => l.text);
        expect(log).toContain(d.failureReason);
        expect(log).toContain('Last log lines:');
        expect(log.join('\n')).toMatch(c.line);
        // The failed container is gone; the good one still serves.
        expect(await p.docker.listContainers({ all: true, filters: { label: [`slipway.deployment=${d.id}`] } })).toEqual([]);
        expect((await client.get(`${appsPath()}/${app.id}`)).body).toMatchObject({ status: 'running', currentDeployment: { status: 'live', image: p.images.v1 } });
      }
      for (const c of inWindow) {
        const from = Date.now();
        const { id } = await deploy(app.id, { image: c.image });
        const d = await backOnFirst(app.id, id, first.id);
        results.push({ image: c.image, status: d.status, failureReason: d.failureReason, from, to: Date.now() });
        expect({ image: c.image, status: d.status }).toEqual({ image: c.image, status: 'crashed' });
        expect(d.failureReason).toMatch(new RegExp(`^The container exited with code 5 \\d\\.\\d s after it first answered, inside its settle window: deployment #${first.number} serves again$`));
        const log = await logOnce(app.id, d.id, (lines) => lines.includes(`Taken out of the route: ${d.failureReason}`), 'the reason in the log');
        expect(log).toContain('Last log lines:');
        expect(log.join('\n')).toMatch(c.line);
        // The previous release's own log says why it serves again.
        const serving = new RegExp(`Serving again: deployment #${d.number} failed inside its settle window \\(The container exited with code 5`);
        await logOnce(app.id, first.id, (lines) => serving.test(lines.join('\n')), "the previous release's log to say why it serves again");
        expect((await client.get(`${appsPath()}/${app.id}`)).body).toMatchObject({ status: 'running', statusDetail: null, currentDeployment: { id: first.id, status: 'live', image: p.images.v1 } });
        await waitUntil(
          () => p.docker.listContainers({ all: true, filters: { label: [`slipway.deployment=${d.id}`] } }),
          (list) => list.length === 0,
          30_000,
          'the failed container to be removed',
        );
      }
      // A good release still rolls out after all that.
      expect(outcome(await settled(app.id, (await deploy(app.id, { image: p.images.v2 })).id))).toBe('live');
      await waitUntil(() => p.viaIngress(app.url), (r) => r.body === 'v2\n', 15_000, 'v2 to serve');
      // …and the request loop sees it too: its request in flight when a release died may have waited out HAProxy's
      // turn-around before it went to the previous release, and a release over a warm one is live at its first answer.
      await waitUntil(async () => answers.some((a) => a.body === 'v2\n'), (seen) => seen, 15_000, 'the request loop to see v2');
    } finally {
      looping = false;
      await loop;
      console.log(report(answers, results));
    }
    const failed = answers.filter((a) => a.status !== 200);
    expect(answers.length).toBeGreaterThan(500);
    expect(failed.map(({ status, body }) => ({ status, body }))).toEqual([]);
    // The releases that died inside their window served (successfully) until they died.
    expect(new Set(answers.map((a) => a.body))).toEqual(new Set(['v1\n', 'v2\n', 'bad\n']));
  });

  it('a first release serves from its first answer while its window runs; one that dies inside it fails and leaves no route', async () => {
    const create = async (image: string) => {
      const res = await client.post(appsPath(), { name: `first ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image, memoryMb: 128 });
      expect(res.status).toBe(201);
      return res.body as { id: string; url: string };
    };
    // A good first release answers through the ingress while its deployment is still deploying (its window runs).
    const good = await create(p.images.v1);
    const goodSeen = await watchRelease(good, (await deploy(good.id)).id);
    expect(goodSeen.at(-1)!.deployment).toBe('live');
    // …for most of its 3-s window, not just the moment between the route's move and the deployment's record.
    const firstAnswer = goodSeen.find(isV1)!;
    const liveSeen = goodSeen.find((a) => a.deployment === 'live')!;
    expect(firstAnswer.deployment).toBe('deploying');
    expect(liveSeen.at - firstAnswer.at).toBeGreaterThan(1_500);
    expect(await p.viaIngress(good.url)).toEqual({ status: 200, body: 'v1\n' });

    // A first release that answers, then dies 2 s later: it served meanwhile, then fails with why, and keeps no route.
    const bad = await create(p.images.exit2s);
    const { id } = await deploy(bad.id);
    const badSeen = await watchRelease(bad, id);
    const d = (await client.get(`${appsPath()}/${bad.id}/deployments/${id}`)).body as { status: string; failureReason: string };
    expect(d.status).toBe('failed');
    expect(d.failureReason).toMatch(/^The container exited with code 5 \d\.\d s after it first answered/);
    expect(badSeen).toContainEqual(expect.objectContaining({ status: 200, body: 'bad\n' }));
    const log = ((await client.get(`${appsPath()}/${bad.id}/deployments/${id}/logs`)).body.data as { text: string }[]).map((l) => l.text);
    expect(log).toContain('Taken out of the route: it did not pass its settle window');
    expect(await p.routed(bad.id)).toBe(false);
    expect((await p.viaIngress(bad.url)).status).not.toBe(200);
  });

  it('a release that crashes after the switch, within a minute, is reported crashed on the deployment and the app', async () => {
    const res = await client.post(appsPath(), { name: `late ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128 });
    const app = res.body as { id: string; url: string };
    expect(outcome(await settled(app.id, (await deploy(app.id)).id))).toBe('live');
    // Answers for 9 s, well past the settle window: it goes live, then exits.
    const d = await settled(app.id, (await deploy(app.id, { image: p.images.exit9s })).id);
    expect(['live', 'crashed']).toContain(d.status);
    const release = await waitUntil(async () => (await client.get(`${appsPath()}/${app.id}/deployments/${d.id}`)).body, (r) => r.status === 'crashed', 30_000, 'the deployment to be crashed');
    expect(release.failureReason).toMatch(/^The container exited on its own with code 5 \d+ s after going live$/);
    // The crash watch writes the deployment's lines just after its status.
    const log = await logOnce(app.id, d.id, (lines) => lines.includes(`Crashed: ${release.failureReason}`), 'the crash in the log');
    expect(log).toEqual(expect.arrayContaining([`Crashed: ${release.failureReason}`, 'exiting after 9000 ms on purpose']));
    const after = (await client.get(`${appsPath()}/${app.id}`)).body;
    expect(after).toMatchObject({ status: 'crashed', statusDetail: { exitCode: 5 }, currentDeployment: { id: d.id, status: 'crashed' } });
    // A rollback (or a fix) goes live over it and supersedes it.
    const first = (await client.get(`${appsPath()}/${app.id}/deployments?limit=2`)).body.data[1] as { id: string };
    const rb = await client.post(`${appsPath()}/${app.id}/deployments/${first.id}/rollback`);
    expect(outcome(await settled(app.id, rb.body.id))).toBe('live');
    // v1 ran past its settle window on this server before: the rollback needs none.
    const rbLog = ((await client.get(`${appsPath()}/${app.id}/deployments/${rb.body.id}/logs`)).body.data as { text: string }[]).map((l) => l.text).join('\n');
    expect(rbLog).toMatch(/no settle window for this rollback/);
    expect((await client.get(`${appsPath()}/${app.id}/deployments/${d.id}`)).body.status).toBe('superseded');
    expect((await client.get(`${appsPath()}/${app.id}`)).body).toMatchObject({ status: 'running' });
  });
});
