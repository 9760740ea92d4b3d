import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp, TEST_SERVICES, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

// The frameworks' own starters (fixtures/starters, made by their generators with their lockfiles), each zipped,
// uploaded, built on the server and served through the ingress: its own page content checked.
jest.setTimeout(600_000);

const CA = '/etc/ssl/certs/ca-certificates.crt';
const STARTERS = path.resolve(__dirname, '../../../../fixtures/starters');

/** The starter's folder as a .zip (the zip CLI, as a user's machine would make it), with optional edits of its files. */
function zipStarter(name: string, edits: Record<string, (text: string) => string> = {}): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), `slipway-starter-${name}-`));
  try {
    cpSync(path.join(STARTERS, name), dir, { recursive: true });
    for (const [file, edit] of Object.entries(edits)) writeFileSync(path.join(dir, file), edit(readFileSync(path.join(dir, file), 'utf8')));
    return execFileSync('zip', ['-q', '-r', '-', '.', '-x', 'node_modules/*', '.next/*', 'dist/*'], { cwd: dir, maxBuffer: 50_000_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The agent's ingress (its own HAProxy's by default, Caddy's with SLIPWAY_TEST_INGRESS=caddy): set once the platform started. */
let ingressPort = TEST_SERVICES.ingressPort;

/** GET through the ingress with a Host header and optional request headers; the raw body (not decompressed). */
function viaIngress(url: string, p: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`http://127.0.0.1:${ingressPort}${p}`, { headers: { Host: new URL(url).host, ...headers }, timeout: 5_000, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('latin1') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

describe('the frameworks’ starters: uploaded as .zip, built, served through the ingress (real Docker and Caddy)', () => {
  let p: TestPlatform;
  let client: ApiClient;
  let ws: { id: string };

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'starters', readyTimeoutMs: 30_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, cpus: 2, memoryMb: 3072 } });
    ingressPort = p.agent.ingressPort;
    client = p.client();
    await signUp(client);
    ws = await createWorkspace(client);
  });

  afterAll(async () => {
    await p?.close();
  });

  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await client.delete(`/v1/workspaces/${ws.id}/apps/${id}`);
  });

  /** Uploads a starter into a new app and waits for its deployment to finish: the app, the deployment and its build log. */
  async function deploy(name: string, memoryMb = 256, o: { app?: { id: string; url: string }; edits?: Record<string, (text: string) => string> } = {}) {
    const apps = `/v1/workspaces/${ws.id}/apps`;
    let app = o.app;
    if (!app) {
      const res = await client.post(apps, { name: `${name} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb });
      expect(res.status).toBe(201);
      created.push(res.body.id);
      app = res.body as { id: string; url: string };
    }
    const up = await client.request('POST', `${apps}/${app.id}/deployments/upload`, { raw: zipStarter(name, o.edits), headers: { 'content-type': 'application/zip' } });
    expect(up.status).toBe(201);
    const done = await waitFor(
      async () => {
        const d = (await client.get(`${apps}/${app.id}/deployments/${up.body.id}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      540_000,
      `${name} to be built and rolled out`,
    );
    const logs = (await client.get(`${apps}/${app.id}/deployments/${up.body.id}/logs?limit=1000`)).body as { data: { phase: string; text: string }[] };
    const build = logs.data.filter((l) => l.phase === 'build').map((l) => l.text);
    if (done.status !== 'live') throw new Error(`${name}: ${done.status} ${done.failureReason}\n${build.slice(-40).join('\n')}`);
    return { app, build };
  }

  /** Waits for the path to answer 200 through the ingress with a body that passes the check. */
  /** A body holding every one of `marks`. */
  const all = (...marks: string[]) => (b: string) => marks.every((m) => b.includes(m));
  const served = (url: string, p: string, check: (body: string) => boolean, headers: Record<string, string> = {}) =>
    waitFor(async () => {
      const r = await viaIngress(url, p, headers).catch(() => null);
      return r?.status === 200 && check(r.body) ? r : null;
    }, 30_000, `${url}${p} to answer`);

  /** The first line after extraction is the summary of what was detected. */
  const summary = (build: string[]) => build.find((l) => l.includes(' · ')) ?? '';

  it('Next.js (create-next-app): built as standalone output, its page served by the standalone server', async () => {
    const { app, build } = await deploy('nextjs');
    expect(summary(build)).toBe('Next.js · Node 24, the default: no .nvmrc, .node-version, .tool-versions, volta.node, engines.node · npm ci · next build · next start (standalone server)');
    await served(app.url, '/', all('To get started, edit the', 'Create Next App'));
    // A second release with a changed page serves the new page: the first release's caches in the project folder
    // (.next/server/route-cache, written by the running server) are not served by the new build.
    const marker = `release ${randomBytes(3).toString('hex')}`;
    await deploy('nextjs', 256, { app, edits: { 'app/page.tsx': (t) => t.replace('To get started, edit the', `To get started (${marker}), edit the`) } });
    await served(app.url, '/', (b) => b.includes(marker));
  });

  it('Vite + React (create-vite react-ts): the build output on Caddy, with the SPA fallback, compression and cache headers', async () => {
    const { app, build } = await deploy('vite-react', 128);
    expect(summary(build)).toMatch(/^Vite · Node 24, the default: .* · npm ci · tsc -b && vite build · static site$/);
    expect(build).toContain('  COPY --from=build /tmp/slipway-site/ /app/');
    const index = await served(app.url, '/', all('<title>vite-react</title>', '<div id="root">'));
    expect(index.headers['cache-control']).toBe('no-cache');
    // A client-side route answers with the app's page.
    await served(app.url, '/some/client/route', (b) => b.includes('<title>vite-react</title>'));
    // The hashed bundle: cached for a year, compressed when asked, and it is the starter's code.
    const asset = /src="(\/assets\/index-[^"]+\.js)"/.exec(index.body)?.[1];
    expect(asset).toBeDefined();
    const js = await served(app.url, asset!, (b) => b.includes('Get started'));
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gz = await viaIngress(app.url, asset!, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(js.body.length);
  });

  it('NestJS (@nestjs/cli new): built, started with start:prod (node dist/main)', async () => {
    const { app, build } = await deploy('nestjs');
    expect(summary(build)).toMatch(/^NestJS · Node 24, .* · npm ci · nest build · node dist\/main$/);
    await served(app.url, '/', (b) => b === 'Hello World!');
  });

  it('Fastify (fastify-cli generate): fastify start listening on 0.0.0.0', async () => {
    const { app, build } = await deploy('fastify', 128);
    expect(summary(build)).toMatch(/^Fastify · Node 24, .* · npm ci · no build · fastify start -l info app\.js$/);
    await served(app.url, '/', (b) => JSON.parse(b).root === true);
    await served(app.url, '/example', (b) => b === 'this is an example');
  });

  it('Express (express-generator): its public/index.html through express.static', async () => {
    const { app, build } = await deploy('express', 128);
    expect(summary(build)).toMatch(/^Express · Node 24, .* · npm ci · no build · node \.\/bin\/www$/);
    await served(app.url, '/', (b) => b.includes('Welcome to Express'));
  });

  it('the Express starter on pnpm 9 (packageManager, through corepack) and Node 22 (engines 22.x)', async () => {
    const { app, build } = await deploy('express-pnpm', 128);
    expect(summary(build)).toBe('Express · Node 22 from engines.node 22.x · pnpm 9.15.9 install --frozen-lockfile · no build · node ./bin/www');
    await served(app.url, '/', (b) => b.includes('Welcome to Express'));
  });

  it('Express with better-sqlite3 and bcrypt (native modules, built with the compiler, run without it): answers a query', async () => {
    const { app, build } = await deploy('express-native', 128);
    expect(summary(build)).toMatch(/^Express · Node 24 from engines\.node >=22 · npm ci · no build · node server\.js$/);
    const r = await served(app.url, '/users/ada?password=lovelace', (b) => b.startsWith('{'));
    expect(JSON.parse(r.body)).toMatchObject({ name: 'ada', passwordMatches: true, sqlite: expect.stringMatching(/^3\./) });
    const wrong = await viaIngress(app.url, '/users/ada?password=nope');
    expect(JSON.parse(wrong.body)).toMatchObject({ passwordMatches: false });
  });
});
