import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { waitFor } from '@slipway/testing/worker';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';

// Issue 30 (jest project `starters`: npx jest --selectProjects starters): the frameworks' own generators' starters (fixtures/starters) with no settings, each uploaded as a .zip,
// built on the server and served through the ingress. One platform for the file; every upload is sent at once and the
// agent builds two at a time (its build slots), so the file costs about the sum of the builds over two.
jest.setTimeout(1_500_000);

const CA = '/etc/ssl/certs/ca-certificates.crt';
const STARTERS = path.resolve(__dirname, '../../../../fixtures/starters');

function zipStarter(name: string, edits: Record<string, (text: string) => string> = {}): Buffer {
  const dir = mkdtempSync(path.join(os.tmpdir(), `slipway-fw-${name}-`));
  try {
    cpSync(path.join(STARTERS, name), dir, { recursive: true });
    for (const [file, edit] of Object.entries(edits)) writeFileSync(path.join(dir, file), edit(readFileSync(path.join(dir, file), 'utf8')));
    return execFileSync('zip', ['-q', '-r', '-', '.'], { cwd: dir, maxBuffer: 50_000_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Deployed {
  app: { id: string; url: string };
  status: string;
  failureReason: string | null;
  build: string[];
}

describe("the frameworks' generators' starters with no settings: built and served through the ingress (real Docker and Caddy)", () => {
  let p: TestPlatform;
  let client: ApiClient;
  const runs = new Map<string, Promise<Deployed>>();

  /** A workspace of its own per starter (the trial plan's quota holds one app of each size comfortably). */
  async function deploy(name: string, o: { port?: number; memoryMb?: number; edits?: Record<string, (text: string) => string> } = {}): Promise<Deployed> {
    const ws = await createWorkspace(client);
    const apps = `/v1/workspaces/${ws.id}/apps`;
    const res = await client.post(apps, { name: `${name} ${randomBytes(2).toString('hex')}`, kind: 'web', source: 'upload', memoryMb: o.memoryMb ?? 256, ...(o.port ? { port: o.port } : {}) });
    expect(res.status).toBe(201);
    const app = res.body as { id: string; url: string };
    const up = await client.request('POST', `${apps}/${app.id}/deployments/upload`, { raw: zipStarter(name, o.edits), headers: { 'content-type': 'application/zip' } });
    expect(up.status).toBe(201);
    const done = await waitFor(
      async () => {
        const d = (await client.get(`${apps}/${app.id}/deployments/${up.body.id}`)).body;
        return ['live', 'failed', 'cancelled'].includes(d.status) ? d : null;
      },
      1_400_000,
      `${name} to be built and rolled out`,
    );
    const build: string[] = [];
    for (let after = 0; ; ) {
      const page = (await client.get(`${apps}/${app.id}/deployments/${up.body.id}/logs?limit=1000&after=${after}`)).body as { data: { phase: string; text: string }[]; nextAfter: number };
      build.push(...page.data.filter((l) => l.phase === 'build').map((l) => l.text));
      if (page.data.length < 1000) break;
      after = page.nextAfter;
    }
    return { app, status: done.status, failureReason: done.failureReason, build };
  }

  /** The starter's deployment, live (else the error carries the reason and the log's last lines). */
  async function live(name: string): Promise<Deployed> {
    const d = await runs.get(name)!;
    if (d.status !== 'live') throw new Error(`${name}: ${d.status}: ${d.failureReason}\n${d.build.slice(-40).join('\n')}`);
    return d;
  }

  const served = (url: string, at: string, check: (body: string) => boolean) =>
    waitFor(async () => {
      const r = await p.viaIngress(url, at).catch(() => null);
      return r?.status === 200 && check(r.body) ? r : null;
    }, 60_000, `${url}${at} to answer`);

  const summary = (build: string[]) => build.find((l) => l.includes(' · ')) ?? '';

  beforeAll(async () => {
    p = await startTestPlatform({ name: 'frameworks', readyTimeoutMs: 60_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, cpus: 2, memoryMb: 3072, concurrency: 2 } });
    client = p.client();
    await signUp(client);
    // Sent at once; the agent runs two builds at a time and the rest wait for a slot.
    const all: [string, Parameters<typeof deploy>[1]][] = [
      ['sveltekit-node', {}],
      ['sveltekit-auto', {}],
      ['nuxt', {}],
      ['angular-csr', { memoryMb: 128 }],
      ['angular-ssr', {}],
      ['astro', { memoryMb: 128 }],
      ['react-router', {}],
      ['vue', { memoryMb: 128 }],
      ['hono', { port: 3000, memoryMb: 128 }],
      ['koa', { memoryMb: 128 }],
      // A description no build has seen: the install layer is built in this run, not reused from an earlier one.
      ['vite-react-old-lock', { memoryMb: 128, edits: { 'package.json': (t) => t.replace('"private": true,', `"private": true,\n  "description": "run ${randomBytes(4).toString('hex')}",`) } }],
      ['vite-react', { memoryMb: 128, edits: { 'src/App.tsx': (t) => t.replace('function App() {', 'function App() {\n  const broken: number = "not a number"') } }],
    ];
    for (const [name, o] of all) runs.set(name === 'vite-react' ? 'broken' : name, deploy(name, o));
    // Every run settles before the tests look at them (a failure is the test's to report, not beforeAll's).
    await Promise.allSettled(runs.values());
  });

  afterAll(async () => {
    await p?.close();
  });

  it('SvelteKit with adapter-node: node build serves the page', async () => {
    const { app, build } = await live('sveltekit-node');
    expect(summary(build)).toMatch(/^SvelteKit · .* · npm ci · vite build · node build$/);
    await served(app.url, '/', (b) => b.includes('Welcome to SvelteKit'));
  });

  it('SvelteKit with adapter-auto: built with adapter-node, node build serves the page', async () => {
    const { app, build } = await live('sveltekit-auto');
    expect(build.join('\n')).toContain('SvelteKit with adapter-auto: built with adapter-node');
    await served(app.url, '/', (b) => b.includes('Welcome to SvelteKit'));
  });

  it("Nuxt: Nitro's .output server renders the page", async () => {
    const { app, build } = await live('nuxt');
    expect(summary(build)).toMatch(/^Nuxt · .* · nuxt build · node \.output\/server\/index\.mjs$/);
    await served(app.url, '/', (b) => b.includes('id="__nuxt"'));
  });

  it('Angular CSR: dist/<name>/browser on the static server, a route falls back to the page, a missing asset is 404', async () => {
    const { app, build } = await live('angular-csr');
    expect(summary(build)).toMatch(/^Angular · .* · ng build · static site$/);
    await served(app.url, '/', (b) => /<title>AngularCsr<\/title>[\s\S]*<app-root>/.test(b));
    await served(app.url, '/a/client/route', (b) => b.includes('<app-root>'));
    const missing = await p.viaIngress(app.url, '/main-DOESNOTEXIST.js');
    expect(missing.status).toBe(404);
  });

  it('Angular SSR: node dist/<name>/server/server.mjs renders the page on the server', async () => {
    const { app, build } = await live('angular-ssr');
    expect(summary(build)).toMatch(/^Angular · .* · ng build · node dist\/angular-ssr\/server\/server\.mjs$/);
    await served(app.url, '/', (b) => b.includes('<title>AngularSsr</title>'));
  });

  it('Astro (minimal): dist/ as a static site', async () => {
    const { app } = await live('astro');
    await served(app.url, '/', (b) => b.includes('<h1>Astro</h1>'));
  });

  it('React Router (default template): react-router-serve renders the page', async () => {
    const { app, build } = await live('react-router');
    expect(summary(build)).toMatch(/^React Router · .* · react-router-serve \.\/build\/server\/index\.js$/);
    await served(app.url, '/', (b) => b.includes('New React Router App'));
  });

  it('Vue (create-vue): the Vite build as a static SPA; a missing asset answers 404, a route the page', async () => {
    const { app } = await live('vue');
    await served(app.url, '/', (b) => b.includes('<div id="app">'));
    await served(app.url, '/about', (b) => b.includes('<div id="app">'));
    const missing = await p.viaIngress(app.url, '/assets/index-DOESNOTEXIST.js');
    expect(missing.status).toBe(404);
    expect(missing.body).not.toContain('<div id="app">');
  });

  it('Hono (nodejs template): built with tsc, started with node dist/index.js; the log names the port it hard-codes', async () => {
    const { app, build } = await live('hono');
    expect(summary(build)).toMatch(/^Hono · .* · tsc · node dist\/index\.js$/);
    expect(build).toContain(
      "src/index.ts listens on port 3000, written in the code: Slipway sends requests to the app's port (PORT, 8080 unless set), so set the app's port to 3000 in its settings, or listen on process.env.PORT",
    );
    await served(app.url, '/', (b) => b === 'Hello Hono!');
  });

  it('Koa: node app.js on PORT', async () => {
    const { app } = await live('koa');
    await served(app.url, '/', (b) => b === 'Hello Koa');
  });

  it('a lockfile without the optional platform packages (an older npm wrote it): npm install instead, with a warning naming them', async () => {
    const { app, build } = await live('vite-react-old-lock');
    const text = build.join('\n');
    expect(text).toContain('slipway warning: package-lock.json is out of sync with package.json (written by another version of the tool?): installing with npm install --no-audit --no-fund instead.');
    expect(text).toMatch(/slipway warning: entries missing from package-lock\.json: .*@oxlint\/binding-linux-x64-gnu@/);
    await served(app.url, '/', (b) => b.includes('<div id="root">'));
  });

  it('a build script that fails: the reason is the error the compiler printed, not a Dockerfile line', async () => {
    const d = await runs.get('broken')!;
    expect(d.status).toBe('failed');
    expect(d.failureReason).toMatch(/^The build script \(npm run build\) failed \(exit code \d+\): .*error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(d.failureReason).not.toMatch(/\/bin\/sh|returned a non-zero code/);
  });
});
