import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { sample, zipOf, type SampleKind } from '@slipway/testing/samples';
import { writeZip } from '@slipway/testing/zip';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { TEST_PUBLIC_ORIGIN } from '@slipway/testing/api';

jest.setTimeout(240_000);

// The npm registry is reachable from containers only with this machine's CA bundle (ENVIRONMENT.md).
const CA = '/etc/ssl/certs/ca-certificates.crt';
const ZIP_LIMIT = 2_000_000;

/** `buf` as a stream of `size`-byte chunks (a body sent chunked, with no length declared). */
function chunked(buf: Buffer, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= buf.length) return controller.close();
      const chunk = buf.subarray(sent, sent + size);
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

describe('.zip uploads end to end: upload, build on the server, rollout behind Caddy (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string; slug: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'uploads', readyTimeoutMs: 20_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, concurrency: 2 }, maxZipUploadBytes: ZIP_LIMIT });
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  // The trial plan holds a few apps at a time: each test's apps are deleted after it (the quota is released at once).
  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await client.delete(`${appsPath()}/${id}`);
  });

  const appsPath = () => `/v1/workspaces/${ws.id}/apps`;
  const newApp = async (source: 'upload' | 'image' = 'upload') => {
    const res = await client.post(appsPath(), {
      name: `up ${randomBytes(3).toString('hex')}`,
      kind: 'web',
      source,
      memoryMb: 128,
      ...(source === 'image' ? { image: p.images.v1 } : {}),
    });
    expect(res.status).toBe(201);
    created.push(res.body.id);
    return res.body as { id: string; url: string };
  };
  const upload = (appId: string, zip: Buffer | string, contentType = 'application/zip') =>
    client.request('POST', `${appsPath()}/${appId}/deployments/upload`, { raw: zip, headers: { 'content-type': contentType } });
  const uploaded = async (appId: string, zip: Buffer) => {
    const res = await upload(appId, zip);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ appId, status: 'queued', source: 'upload', image: null });
    return res.body as { id: string };
  };
  const settled = (appId: string, deploymentId: string) =>
    waitFor(
      async () => {
        const d = (await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      120_000,
      `deployment ${deploymentId} to finish`,
    );
  const logText = async (appId: string, deploymentId: string, phase?: string) => {
    const body = (await client.get(`${appsPath()}/${appId}/deployments/${deploymentId}/logs?limit=1000`)).body as { data: { phase: string; text: string }[] };
    return body.data
      .filter((l) => !phase || l.phase === phase)
      .map((l) => l.text)
      .join('\n');
  };
  /** Waits for the deployment to finish; anything but live fails with its reason and its log. */
  const live = async (appId: string, deploymentId: string) => {
    const d = await settled(appId, deploymentId);
    if (d.status !== 'live') throw new Error(`${d.status}: ${d.failureReason}\n${await logText(appId, deploymentId)}`);
    return d;
  };
  /** Whether the deployment's log holds `text`. */
  const logHas = async (appId: string, deploymentId: string, text: string) => (await logText(appId, deploymentId)).includes(text);
  const served = (url: string, expected: string) =>
    waitFor(async () => {
      const r = await p.viaIngress(url).catch(() => null);
      return r?.status === 200 && r.body === expected ? r : null;
    }, 20_000, `${url} to answer ${JSON.stringify(expected)}`);
  const deployLive = async (kind: SampleKind, version: string, appId?: string) => {
    const app = appId ? { id: appId, url: '' } : await newApp();
    const d = await uploaded(app.id, zipOf(sample(kind, version)));
    const done = await settled(app.id, d.id);
    if (done.status !== 'live') throw new Error(`${kind}: ${done.status} ${done.failureReason}\n${await logText(app.id, d.id)}`);
    return { app, d };
  };
  const uploadsOnAgent = async () => (await readdir(path.join(p.agent.dataDir, 'uploads')).catch(() => [] as string[])).sort();

  it.each<[SampleKind, string, RegExp]>([
    ['node', 'node v1 1m\n', /Found package-lock\.json: dependencies installed with npm ci/],
    ['python', 'python v1\n', /Found requirements\.txt: a Python app[\s\S]*pip install/],
    ['static', 'static v1\n', /Found index\.html: a static site/],
    ['dockerfile', 'dockerfile v1\n', /Found a Dockerfile at the root/],
  ])('a %s app is uploaded, built and answers through the ingress', async (kind, body, detection) => {
    const { app, d } = await deployLive(kind, 'v1');
    await served(app.url, body);
    const build = await logText(app.id, d.id, 'build');
    expect(build).toMatch(detection);
    expect(build).toMatch(/Built slipway-app\//);
    const got = (await client.get(`${appsPath()}/${app.id}/deployments/${d.id}`)).body;
    expect(got).toMatchObject({ status: 'live', imageAvailable: true, failureReason: null });
    // The .zip is gone from the server once built.
    expect(await uploadsOnAgent()).not.toContain(`${d.id}.zip`);
  });

  it('a second upload with the same lockfile reuses the dependency layer; the project folder keeps files the image lacks; a redeploy keeps edits', async () => {
    const { app, d } = await deployLive('node', 'a1');
    await served(app.url, 'node a1 1m\n');
    const files = `${appsPath()}/${app.id}/files/content`;
    // A file only the folder has, and an edit of a file the image also has.
    expect((await client.request('PUT', `${files}?path=notes.txt`, { raw: 'mine\n', headers: { 'content-type': 'application/octet-stream' } })).status).toBe(200);

    const second = await uploaded(app.id, zipOf(sample('node', 'a2')));
    const done = await settled(app.id, second.id);
    expect(done.status).toBe('live');
    const log = (await logText(app.id, second.id, 'build')).split('\n');
    // BuildKit (the default engine) names the reused install step (builds/buildkit.ts).
    expect(log).toContain('Dependencies reused from the build cache (package.json and the lockfile are unchanged)');
    await served(app.url, 'node a2 1m\n');
    // New image: its /app overwrote server.js in the folder; notes.txt stayed.
    const folder = path.join(p.agent.dataDir, 'volumes', app.id);
    expect(await readFile(path.join(folder, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(await readFile(path.join(folder, 'server.js'), 'utf8')).toContain("'node a2 '");
    expect(d.id).not.toBe(second.id);

    // An edit of the code through the files API survives a redeploy (same image: the folder is left alone).
    const edited = (await readFile(path.join(folder, 'server.js'), 'utf8')).replace("'node a2 '", "'edited '");
    expect((await client.request('PUT', `${files}?path=server.js`, { raw: edited, headers: { 'content-type': 'application/octet-stream' } })).status).toBe(200);
    const redeploy = await client.post(`${appsPath()}/${app.id}/deployments`, {});
    expect(redeploy.status).toBe(201);
    await live(app.id, redeploy.body.id);
    expect(await logText(app.id, redeploy.body.id, 'build')).not.toMatch(/docker build/);
    await served(app.url, 'edited 1m\n');
    expect(await readFile(path.join(folder, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('a .zip whose entry fails its CRC-32 check (a byte changed by hand) fails the build with a reason, and nothing goes live', async () => {
    const app = await newApp();
    // A stored (uncompressed) entry: the byte is changed in place, sizes stay right, only the CRC-32 tells.
    const zip = writeZip([{ name: 'index.html', data: '<h1>hello from a zip</h1>\n', store: true }]);
    const at = zip.indexOf('hello from a zip');
    zip[at] = 'j'.charCodeAt(0);
    const d = await uploaded(app.id, zip);
    const done = await settled(app.id, d.id);
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatch(/^The \.zip is damaged: the contents of "index\.html" fail their CRC-32 check \(the archive says [0-9a-f]{8}, the bytes give [0-9a-f]{8}\); make the \.zip again and upload it$/);
    expect((await client.get(`${appsPath()}/${app.id}`)).body.currentDeployment).toBeNull();
  });

  it('POST deployments on an upload app before any build is 409 no_image_built', async () => {
    const app = await newApp();
    const res = await client.post(`${appsPath()}/${app.id}/deployments`, {});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('no_image_built');
  });

  it('an upload to an image app is 409 source_mismatch; another content type is 415', async () => {
    const image = await newApp('image');
    const mismatch = await upload(image.id, zipOf(sample('static')));
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error.code).toBe('source_mismatch');
    const app = await newApp();
    const wrong = await upload(app.id, zipOf(sample('static')), 'application/octet-stream');
    expect(wrong.status).toBe(415);
    expect(wrong.body.error.code).toBe('unsupported_media_type');
  });

  it('an oversized upload gets 413 and the server stores nothing, with or without a Content-Length', async () => {
    const app = await newApp();
    const before = await uploadsOnAgent();
    const big = randomBytes(ZIP_LIMIT + 500_000);
    const declared = await upload(app.id, big);
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe('payload_too_large');

    // Chunked: the limit is counted as the bytes pass through the API to the agent.
    const stream = chunked(big, 64 * 1024);
    const res = await fetch(new URL(`${appsPath()}/${app.id}/deployments/upload`, p.base), {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'content-type': 'application/zip', cookie: `svc_session=${client.cookie('svc_session')}`, origin: TEST_PUBLIC_ORIGIN },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    await new Promise((r) => setTimeout(r, 300));
    expect(await uploadsOnAgent()).toEqual(before);
    const list = (await client.get(`${appsPath()}/${app.id}/deployments`)).body;
    expect(list.data).toEqual([]);
  });

  it.each<[string, Buffer, RegExp]>([
    ['zip-slip', writeZip([{ name: 'index.html', data: 'x' }, { name: '../../../escaped-slip.txt', data: 'pwned' }]), /contains "\.\." and would be written outside the build folder/],
    ['symlink', writeZip([{ name: 'index.html', data: 'x' }, { name: 'passwd', data: '/etc/passwd', mode: 0o120777 }]), /"passwd" is a symbolic link/],
    ['zip bomb', writeZip([{ name: 'index.html', data: 'x' }, { name: 'bomb.bin', data: Buffer.alloc(60_000_000) }]), /"bomb\.bin" expands more than \d+ times .*zip bomb/],
    ['non-zip', Buffer.from('<html>this is not a zip</html>\n'.repeat(50)), /not a valid \.zip/],
  ])('a %s upload ends in a failed deployment with a clear reason and nothing outside the build folder', async (_name, zip, reason) => {
    const app = await newApp();
    const d = await uploaded(app.id, zip);
    const done = await settled(app.id, d.id);
    expect(done.status).toBe('failed');
    expect(done.failureReason).toMatch(reason);
    expect(await logText(app.id, d.id, 'build')).toMatch(reason);
    for (const dir of [p.agent.dataDir, path.dirname(p.agent.dataDir), path.join(p.agent.dataDir, 'builds')]) {
      expect(await readdir(dir).catch(() => [])).not.toContain('escaped-slip.txt');
    }
    expect(await readdir(path.join(p.agent.dataDir, 'builds')).catch(() => [])).toEqual([]);
    expect(await uploadsOnAgent()).not.toContain(`${d.id}.zip`);
    const got = (await client.get(`${appsPath()}/${app.id}`)).body;
    expect(got.status).toBe('failed');
  });

  it('cancelling a deployment while it builds stops the build', async () => {
    const app = await newApp();
    const marker = randomUUID().slice(0, 8);
    const d = await uploaded(app.id, zipOf({ Dockerfile: `FROM slipway/node:24\nRUN echo ${marker} && sleep 120\nCMD ["node"]\n` }));
    const buildRuns = () => processWith(marker);
    await waitFor(() => logHas(app.id, d.id, marker), 60_000, 'the RUN step to log');
    await waitFor(buildRuns, 60_000, 'the RUN step to start');
    const cancel = await client.post(`${appsPath()}/${app.id}/deployments/${d.id}/cancel`, {});
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    await waitFor(async () => !(await buildRuns()), 15_000, 'the build step to stop');
    await waitFor(() => logHas(app.id, d.id, 'Build stopped: the deployment was cancelled'), 15_000, 'the worker to note the cancel');
    expect((await client.get(`${appsPath()}/${app.id}/deployments/${d.id}`)).body.status).toBe('cancelled');
    // The agent removes the build folder once the build has stopped (BuildKit's CLI ends its session first, and the
    // app's cache is measured): shortly after the worker's note, not necessarily before it.
    await waitFor(async () => (await readdir(path.join(p.agent.dataDir, 'builds')).catch(() => [])).length === 0, 15_000, 'the build folder to be removed');
    expect(await readdir(path.join(p.agent.dataDir, 'builds')).catch(() => [])).toEqual([]);
  });
  it("build settings: root directory, build and start commands override detection, are shown on the app and apply from the next deployment", async () => {
    // A monorepo-ish upload: the app lives in services/web; its start script is wrong on purpose, its server is built.
    const monorepo = (label: string) =>
      zipOf({
        'README.md': 'not the app\n',
        'services/web/package.json': JSON.stringify({ name: 'web', version: '1.0.0', private: true, scripts: { start: 'node wrong.js' } }),
        'services/web/build.js': `require('node:fs').mkdirSync('out', { recursive: true });
require('node:fs').writeFileSync('out/server.js', "require('node:http').createServer((q, r) => r.end((process.env.ALT ? 'alt ' : '') + '${label}\\\\n')).listen(Number(process.env.PORT), () => console.log('built server up'));");
console.log('build.js wrote out/server.js');
// ${randomBytes(6).toString('hex')}: this run's own build, never a layer cached by an earlier run
`,
      });
    const settings = { rootDirectory: 'services/web/', buildCommand: 'node build.js', startCommand: 'node out/server.js' };
    const res = await client.post(appsPath(), { name: `mono ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 128, ...settings });
    expect(res.status).toBe(201);
    created.push(res.body.id);
    expect(res.body).toMatchObject({ rootDirectory: 'services/web', buildCommand: 'node build.js', startCommand: 'node out/server.js' });
    const app = res.body as { id: string; url: string };

    const first = await live(app.id, (await uploaded(app.id, monorepo('settings v1'))).id);
    await served(app.url, 'settings v1\n');
    const build = await logText(app.id, first.id, 'build');
    expect(build).toContain("Root directory from the app's settings: services/web/");
    expect(build).toContain("Build command from the app's settings: node build.js");
    expect(build).toContain("Start command from the app's settings: node out/server.js");
    expect(build).toContain('build.js wrote out/server.js');
    expect(build).not.toMatch(/wrong\.js|README/);

    // A change applies from the next deployment that builds, not to the one serving.
    const patched = await client.patch(`${appsPath()}/${app.id}`, { startCommand: 'ALT=1 node out/server.js' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ startCommand: 'ALT=1 node out/server.js', buildCommand: 'node build.js', rootDirectory: 'services/web' });
    await served(app.url, 'settings v1\n');
    await live(app.id, (await uploaded(app.id, monorepo('settings v2'))).id);
    await served(app.url, 'alt settings v2\n');

    // null goes back to detection: the start script (node wrong.js) then fails the rollout, the v2 build keeps serving.
    expect((await client.patch(`${appsPath()}/${app.id}`, { startCommand: null })).body).toMatchObject({ startCommand: null });
    const third = await settled(app.id, (await uploaded(app.id, monorepo('settings v3'))).id);
    expect(third.status).toBe('failed');
    expect(await logText(app.id, third.id)).toMatch(/Cannot find module '\/app\/wrong\.js'/);
    await served(app.url, 'alt settings v2\n');

    // A root directory the upload does not have fails the build with the reason.
    await client.patch(`${appsPath()}/${app.id}`, { rootDirectory: 'services/api', startCommand: 'node out/server.js' });
    const missing = await settled(app.id, (await uploaded(app.id, monorepo('settings v4'))).id);
    expect(missing).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/root directory services\/api\/ is not a folder of the upload/) });

    // Validation: confined relative folders, one-line commands, and only for apps built from source.
    for (const [body, field] of [
      [{ rootDirectory: '../etc' }, '/rootDirectory'],
      [{ rootDirectory: '/srv/app' }, '/rootDirectory'],
      [{ rootDirectory: 'a/./b' }, '/rootDirectory'],
      [{ buildCommand: 'npm run build\nrm -rf /' }, '/buildCommand'],
      [{ startCommand: '   ' }, '/startCommand'],
      [{ buildCommand: 'x'.repeat(1025) }, '/buildCommand'],
    ] as const) {
      const bad = await client.patch(`${appsPath()}/${app.id}`, body);
      expect([bad.status, bad.body.error.code, bad.body.error.details?.[0]?.field]).toEqual([400, 'validation_failed', field]);
    }
    const image = await client.post(appsPath(), { name: `img ${randomBytes(3).toString('hex')}`, kind: 'web', source: 'image', image: p.images.v1, memoryMb: 128, buildCommand: 'make' });
    expect([image.status, image.body.error.details]).toEqual([400, [{ field: '/buildCommand', message: 'applies to apps built from source (upload, github), not to an image' }]]);
  });
});

/**
 * A process on this machine whose command line has the marker: a build step, whichever the engine (BuildKit's steps
 * are not containers docker lists; the classic builder's are, and their processes are this machine's too).
 */
async function processWith(marker: string): Promise<boolean> {
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) return true;
  }
  return false;
}
