import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { zipOf } from '@slipway/testing/samples';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

// Issue 30 with SLIPWAY_BUILD_ENGINE=buildkit: the app's variables reach `npm run build` as a build secret (absent from
// the image's history, its config and the log), and a redeploy after an edit reuses the per-app caches and says so.
jest.setTimeout(600_000);

const CA = '/etc/ssl/certs/ca-certificates.crt';
const STARTERS = path.resolve(__dirname, '../../../../fixtures/starters');
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

function zipStarter(name: string, edits: Record<string, (text: string) => string>): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), `slipway-bk-${name}-`));
  try {
    cpSync(path.join(STARTERS, name), dir, { recursive: true });
    for (const [file, edit] of Object.entries(edits)) writeFileSync(path.join(dir, file), edit(readFileSync(path.join(dir, file), 'utf8')));
    return execFileSync('zip', ['-q', '-r', '-', '.'], { cwd: dir, maxBuffer: 50_000_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('builds with BuildKit (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let apps: string;

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'buildkit', readyTimeoutMs: 30_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, cpus: 2, memoryMb: 2048, concurrency: 2, engine: 'buildkit' } });
    client = p.client();
    await signUp(client);
    const ws = await createWorkspace(client);
    apps = `/v1/workspaces/${ws.id}/apps`;
  });

  afterAll(async () => {
    await p?.close();
  });

  async function deploy(appId: string, zip: Buffer) {
    const up = await client.request('POST', `${apps}/${appId}/deployments/upload`, { raw: zip, headers: { 'content-type': 'application/zip' } });
    expect(up.status).toBe(201);
    const done = await waitFor(
      async () => {
        const d = (await client.get(`${apps}/${appId}/deployments/${up.body.id}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      540_000,
      'the deployment to finish',
    );
    const log = ((await client.get(`${apps}/${appId}/deployments/${up.body.id}/logs?limit=1000`)).body as { data: { phase: string; text: string }[] }).data;
    const build = log.filter((l) => l.phase === 'build').map((l) => l.text);
    if (done.status !== 'live') throw new Error(`${done.status}: ${done.failureReason}\n${build.slice(-30).join('\n')}`);
    return { id: up.body.id as string, build, all: log.map((l) => l.text).join('\n') };
  }

  const served = (url: string, check: (body: string) => boolean) =>
    waitFor(async () => {
      const r = await p.viaIngress(url).catch(() => null);
      return r?.status === 200 && check(r.body) ? r : null;
    }, 30_000, `${url} to answer`);

  it("a secret variable reaches npm run build, and is in neither the image's history nor its config nor the log", async () => {
    const res = await client.post(apps, { name: `secret ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 128 });
    expect(res.status).toBe(201);
    const app = res.body as { id: string; url: string };
    const secret = `s3cr3t-${randomBytes(12).toString('hex')}`;
    const digest = createHash('sha256').update(secret).digest('hex');
    expect((await client.put(`${apps}/${app.id}/env`, { variables: [{ key: 'BUILD_TOKEN', value: secret, secret: true }, { key: 'GREETING', value: 'hello from the build' }] })).status).toBe(200);
    const files = {
      'package.json': JSON.stringify({ name: 'secret-build', version: '1.0.0', scripts: { build: 'node build.js', start: 'node server.js' } }),
      // The build proves it saw the secret (its sha256) without writing it anywhere.
      'build.js':
        "const fs = require('fs'); const crypto = require('crypto');\n" +
        "fs.mkdirSync('dist', { recursive: true });\n" +
        "fs.writeFileSync('dist/info.json', JSON.stringify({ sha: crypto.createHash('sha256').update(process.env.BUILD_TOKEN || '').digest('hex'), greeting: process.env.GREETING, nodeEnv: process.env.NODE_ENV }));\n" +
        "console.log('build saw a token of', (process.env.BUILD_TOKEN || '').length, 'characters');\n",
      'server.js': "require('http').createServer((q, s) => s.end(require('fs').readFileSync('dist/info.json'))).listen(process.env.PORT);\n",
    };
    const d = await deploy(app.id, zipOf(files));
    const page = await served(app.url, (b) => b.includes('"sha"'));
    expect(JSON.parse(page.body)).toEqual({ sha: digest, greeting: 'hello from the build', nodeEnv: 'production' });
    expect(d.build).toContain(`build saw a token of ${secret.length} characters`);
    expect(d.build.join('\n')).toContain("The app's variables reach the build command as a build secret, never in the image or this log: BUILD_TOKEN (secret), GREETING");
    // Nowhere to be read back: the log, the image's history (every layer's command) and its config.
    expect(d.all).not.toContain(secret);
    const image = docker.getImage(`slipway-app/${app.id}:${d.id}`);
    expect(JSON.stringify(await image.history())).not.toContain(secret);
    expect(JSON.stringify(await image.inspect())).not.toContain(secret);
    expect(execFileSync('/usr/bin/docker', ['history', '--no-trunc', `slipway-app/${app.id}:${d.id}`]).toString()).not.toContain(secret);
  });

  it('a redeploy after an edit serves the edit and reports the caches it reused', async () => {
    const res = await client.post(apps, { name: `cache ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: 128 });
    expect(res.status).toBe(201);
    const app = res.body as { id: string; url: string };
    const nonce = randomBytes(4).toString('hex');
    const edit = (marker: string) => ({
      'package.json': (t: string) => t.replace('"private": true,', `"private": true,\n  "description": "run ${nonce}",`),
      'public/index.html': (t: string) => t.replace('Welcome to Express', `Welcome to Express ${marker}`),
    });
    const first = await deploy(app.id, zipStarter('express', edit('first')));
    expect(first.build.join('\n')).not.toContain('Dependencies reused from the build cache');
    await served(app.url, (b) => b.includes('Welcome to Express first'));
    const second = await deploy(app.id, zipStarter('express', edit('second')));
    expect(second.build).toContain('Dependencies reused from the build cache (package.json and the lockfile are unchanged)');
    await served(app.url, (b) => b.includes('Welcome to Express second'));
  });
});
