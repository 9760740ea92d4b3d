import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace, signUp, type ApiClient } from '@slipway/testing';
import { GitRepo, startGithubDouble, type GithubDouble } from '@slipway/testing/github';
import { startTestPlatform, type TestPlatform } from '@slipway/testing/platform';
import { nodeSample } from '@slipway/testing/samples';
import { waitFor } from '@slipway/testing/worker';

// The built `slipway` (dist/slipway.js, as published) run as a subprocess against the whole platform (API, workers,
// a real agent, Docker, Caddy), the way a user runs it: one platform and one app shared by the cases, in order.
jest.setTimeout(900_000);

const CA = '/etc/ssl/certs/ca-certificates.crt';
const ROOT = path.resolve(__dirname, '../../..');
const BIN = path.join(ROOT, 'apps/slipway/dist/slipway.js');
const STARTER = path.join(ROOT, 'fixtures/starters/express');
const BIG_MB = 24;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('slipway, the user CLI, against a real platform', () => {
  let p: TestPlatform;
  let owner: ApiClient;
  let ws: { id: string; slug: string };
  let email: string;
  let password: string;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'slipway-cli-'));
  const home = path.join(tmp, 'config');
  const project = path.join(tmp, 'web');
  let appId: string;
  let url: string;
  let gh: GithubDouble;
  let repo: GitRepo;
  let installation: { id: number };
  const shas: Record<string, string> = {};

  /** The environment the CLI runs with: only this test's config home (no SLIPWAY_* of the machine), NO_COLOR on. */
  const cliEnv = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: tmp, XDG_CONFIG_HOME: home, NO_COLOR: '1', ...extra });
  /** Runs the built CLI in the project folder (or `cwd`). */
  function slipway(args: string[], o: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        cwd: o.cwd ?? project,
        env: cliEnv(o.env),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(o.input ?? '');
    });
  }
  const apiPath = (rest = '') => `/v1/workspaces/${ws.id}/apps/${appId}${rest}`;
  const served = (p2: string, check: (body: string) => boolean, at?: string) =>
    waitFor(async () => {
      const r = await p.viaIngress(at ?? url, p2).catch(() => null);
      return r?.status === 200 && check(r.body) ? r.body : null;
    }, 60_000, `${url}${p2} to answer as expected`);

  /** A statement through `slipway db shell` (psql over the public TLS port). */
  const sql = (name: string, statement: string) => slipway(['db', 'shell', name, '--', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', statement]);
  /** The statement again until it succeeds with some output. */
  const sqlUntil = (name: string, statement: string, what: string, ms = 60_000) =>
    waitFor(async () => {
      const r = await sql(name, statement);
      return r.code === 0 && r.stdout.trim() !== '' ? r : null;
    }, ms, what);

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'apps/slipway/build.mjs')], { cwd: ROOT });
    // A GitHub API double with one repository (two commits) for `deploy --github`.
    gh = await startGithubDouble();
    repo = await GitRepo.create();
    shas.v1 = await repo.commit(nodeSample('v1'), 'first version');
    shas.v2 = await repo.commit(nodeSample('v2'), 'second version');
    installation = gh.addInstallation('acme', [gh.addRepository('acme/shop', repo).id]);
    p = await startTestPlatform({ name: 'slipway-cli', publicOrigin: 'self', readyTimeoutMs: 30_000, stopGraceMs: 2_000, build: { extraCaBundle: CA, cpus: 2, memoryMb: 2048 }, env: gh.env() });
    owner = p.client();
    ({ email, password } = await signUp(owner));
    ws = await createWorkspace(owner);
    // The Express starter, with a route that shows a variable, and what must never be uploaded: a large folder the
    // .gitignore lists, node_modules and a .env.
    cpSync(STARTER, project, { recursive: true });
    appendFileSync(path.join(project, 'app.js'), "\napp.get('/env', (req, res) => res.send(`greeting=${process.env.GREETING || ''}`));\n");
    writeFileSync(path.join(project, '.gitignore'), 'big-assets/\n');
    mkdirSync(path.join(project, 'big-assets'));
    writeFileSync(path.join(project, 'big-assets/video.bin'), randomBytes(BIG_MB * 1024 * 1024));
    mkdirSync(path.join(project, 'node_modules/left-behind'), { recursive: true });
    writeFileSync(path.join(project, 'node_modules/left-behind/index.js'), 'module.exports = 1;\n');
    writeFileSync(path.join(project, '.env'), 'SECRET=do-not-upload\n');
  });

  afterAll(async () => {
    await p?.close();
    await gh?.close();
    await repo?.remove();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('login with email and password stores a workspace token in a 0600 file; whoami answers who it is', async () => {
    const login = await slipway(['login', '--url', p.base, '--email', email, '--password-stdin'], { input: `${password}\n` });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const file = path.join(home, 'slipway/config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ url: p.base, workspaceId: ws.id, email, token: expect.stringMatching(/^svc_/) });
    const who = await slipway(['whoami', '--json']);
    expect(who.code).toBe(0);
    const me = (await owner.get('/v1/auth/me')).body;
    expect(JSON.parse(who.stdout)).toMatchObject({ url: p.base, user: me.user, workspace: { id: ws.id } });
    // A wrong password: the API's code and message, exit 5.
    const wrong = await slipway(['login', '--url', p.base, '--email', email, '--password-stdin'], { input: 'not-it\n' });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toMatch(/^error invalid_credentials: /);
  });

  it('apps create --link writes .slipway.json; deploy uploads what git would commit, follows the build and prints the URL, which serves', async () => {
    const created = await slipway(['apps', 'create', 'web', '--memory', '256', '--link']);
    expect(created.code).toBe(0);
    const link = JSON.parse(readFileSync(path.join(project, '.slipway.json'), 'utf8'));
    appId = link.app;
    expect(link).toEqual({ workspace: ws.id, app: expect.any(String) });

    const deploy = await slipway(['deploy']);
    expect(deploy.code).toBe(0);
    // Build log lines were printed as they came, then the URL.
    expect(deploy.stdout).toMatch(/build │ .*Express/);
    const app = (await owner.get(apiPath())).body;
    url = app.url;
    expect(deploy.stdout.trim().split('\n').at(-1)).toBe(`✔ Deployment #1 is live at ${url}`);
    await served('/', (b) => b.includes('Welcome to Express'));
    // The ignored folder was not uploaded: the upload is a few KB (the folder is 24 MB of random bytes), and the
    // project folder on the server has neither it, node_modules from here, nor the .env.
    const size = /Uploading (\d+) files \(([\d.]+) (B|KB|MB)\)/.exec(deploy.stderr);
    expect(size?.[3]).toBe('KB');
    const files = (await owner.get(apiPath('/files'))).body.entries.map((e: { name: string }) => e.name);
    expect(files).toEqual(expect.arrayContaining(['app.js', 'package.json', 'routes']));
    expect(files).not.toContain('big-assets');
    expect(files).not.toContain('.env');
    const leftBehind = await owner.get(`${apiPath('/files')}?path=node_modules`);
    expect(JSON.stringify(leftBehind.body)).not.toContain('left-behind');
  });

  it('--json prints the API’s objects unchanged; tables for people', async () => {
    const list = await slipway(['deployments', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual((await owner.get(`${apiPath('/deployments')}?limit=20`)).body);
    const status = await slipway(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: appId, status: 'running', url });
    const table = await slipway(['apps', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +KIND +SOURCE +STATUS +LIVE +URL$/);
    expect(table.stdout).toContain(url);
    const missing = await slipway(['status', '--app', 'no-such-app']);
    expect(missing.code).toBe(3);
  });

  it('logs -f prints a line the app writes after the command started', async () => {
    const marker = `marker-${randomBytes(4).toString('hex')}`;
    const child = spawn(process.execPath, [BIN, 'logs', '-f'], { cwd: project, env: cliEnv() });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      // Once it has printed the backlog (the start line), the app logs a request that names the marker (morgan).
      await waitFor(async () => out.length > 0, 30_000, 'the backlog');
      await p.viaIngress(url, `/${marker}`);
      await waitFor(async () => out.includes(marker), 30_000, 'the marker line in logs -f');
    } finally {
      child.kill('SIGINT');
    }
    // The app's own colours (morgan's) are gone: stdout is not a terminal.
    expect(out).toMatch(new RegExp(`^\\S+Z GET /${marker} 404 `, 'm'));
  });

  // A restart recreates the container from the same image with the current variables (docs/decisions/0027-1);
  // `redeploy` makes a new release of the live image with them.
  it('env set and unset reach the app after a restart, and after a redeploy', async () => {
    const set = await slipway(['env', 'set', 'GREETING=hello from the CLI']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/GREETING +hello from the CLI/);
    const restart = await slipway(['restart', '--json']);
    expect(restart.code).toBe(0);
    expect(JSON.parse(restart.stdout)).toMatchObject({ id: appId, status: 'running' });
    await served('/env', (b) => b === 'greeting=hello from the CLI');
    const secret = await slipway(['env', 'set', 'TOKEN=abc', '--secret', '--json']);
    expect(JSON.parse(secret.stdout).data).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'TOKEN', value: null, secret: true })]));
    expect((await slipway(['env', 'unset', 'GREETING'])).code).toBe(0);
    expect((await slipway(['redeploy'])).code).toBe(0);
    await served('/env', (b) => b === 'greeting=');
  });

  it('a second release, then rollback serves the first again', async () => {
    const index = path.join(project, 'public/index.html');
    writeFileSync(index, readFileSync(index, 'utf8').replace('Welcome to Express', 'Welcome to release two'));
    const second = await slipway(['deploy']);
    expect(second.code).toBe(0);
    await served('/', (b) => b.includes('Welcome to release two'));
    const back = await slipway(['rollback']);
    expect(back.stderr).toContain('Rolling back to #2 as #4');
    expect(back.code).toBe(0);
    expect(back.stdout).toContain(`✔ Deployment #4 is live at ${url}`);
    await served('/', (b) => b.includes('Welcome to Express'));
  });

  it('a failing build exits 1 with the reason; the live release stays', async () => {
    const broken = path.join(tmp, 'broken');
    cpSync(STARTER, broken, { recursive: true });
    const pkg = JSON.parse(readFileSync(path.join(broken, 'package.json'), 'utf8'));
    pkg.scripts.build = 'node -e "console.error(\'the build broke on purpose\'); process.exit(3)"';
    writeFileSync(path.join(broken, 'package.json'), JSON.stringify(pkg, null, 2));
    const run = await slipway(['deploy', broken, '--app', 'web']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the build broke on purpose');
    expect(run.stderr).toMatch(/^error deployment_failed: Deployment #5 failed: \S.+/m);
    await served('/', (b) => b.includes('Welcome to Express'));
  });

  it("a viewer's token gets exit code 5 on a write, with the API's code and message", async () => {
    const viewer = p.client();
    const v = await signUp(viewer);
    // Viewers cannot mint tokens: a developer's token, then the member becomes a viewer (tokens act with the role now).
    expect((await owner.post(`/v1/workspaces/${ws.id}/members`, { email: v.email, role: 'developer' })).status).toBe(201);
    const minted = await viewer.post(`/v1/workspaces/${ws.id}/tokens`, { name: 'viewer' });
    expect(minted.status).toBe(201);
    expect((await owner.patch(`/v1/workspaces/${ws.id}/members/${v.user.id}`, { role: 'viewer' })).status).toBe(200);
    const token = minted.body.token as string;
    const env = { SLIPWAY_URL: p.base, SLIPWAY_TOKEN: token };
    const read = await slipway(['env', 'list', '--app', 'web'], { env });
    expect(read.code).toBe(0);
    const write = await slipway(['env', 'set', 'A=1', '--app', 'web'], { env });
    expect(write.code).toBe(5);
    expect(write.stderr).toMatch(/^error forbidden: \S/);
  });

  it('db create, url, shell through TLS, a backup, a restore and a download', async () => {
    const created = await slipway(['db', 'create', 'main', '--engine', 'postgres', '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const db = JSON.parse(created.stdout);
    expect(db).toMatchObject({ name: 'main', status: 'running' });
    const urlRun = await slipway(['db', 'url', 'main']);
    expect(urlRun.stdout.trim()).toBe((await owner.get(`/v1/workspaces/${ws.id}/databases/${db.id}/connection`)).body.url);
    // Without public access the shell says how to switch it on (exit 4).
    expect((await slipway(['db', 'shell', 'main'])).code).toBe(4);
    expect((await slipway(['db', 'public', 'main', '--allow', '127.0.0.1/32'])).code).toBe(0);
    // The public listener follows a job: retry until it answers.
    const first = await sqlUntil('main', 'SELECT 40 + 2', 'the shell through the public TLS port');
    expect(first.stdout.trim()).toBe('42');
    expect(first.stderr).toContain('verified against the platform');
    // TLS verified: the session is encrypted.
    expect((await sql('main', 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).stdout.trim()).toBe('t');
    expect((await sql('main', "CREATE TABLE notes (body text); INSERT INTO notes VALUES ('kept by the backup')")).code).toBe(0);

    const backup = await slipway(['db', 'backup', 'main', '--json']);
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ status: 'completed' });
    const listed = await slipway(['db', 'backups', 'main']);
    expect(listed.stdout).toContain(JSON.parse(backup.stdout).id);

    // Restored into the same database (a new one would not fit the plan's disk beside it): the row is back.
    expect((await sql('main', 'DELETE FROM notes')).code).toBe(0);
    const restored = await slipway(['db', 'restore', 'main', 'latest', '--into', 'same', '--json']);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ ok: true, databaseId: db.id });
    const back = await sqlUntil('main', 'SELECT body FROM notes', 'the restored rows', 120_000);
    expect(back.stdout.trim()).toBe('kept by the backup');

    const download = await slipway(['db', 'restore', 'main', JSON.parse(backup.stdout).id, '--into', 'download', '-o', path.join(tmp, 'main.dump')]);
    expect(download.code).toBe(0);
    expect(existsSync(path.join(tmp, 'main.dump'))).toBe(true);
    expect(statSync(path.join(tmp, 'main.dump')).size).toBe(JSON.parse(backup.stdout).sizeBytes);
  });

  it('stop and start; db connect puts the URL in a secret variable; an image app deploys --image', async () => {
    const stopped = await slipway(['stop', '--json']);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ status: 'stopped', desiredState: 'stopped' });
    expect((await slipway(['start'])).stdout.trim()).toBe('web: running');
    await served('/', (b) => b.includes('Welcome to Express'));

    const connected = await slipway(['db', 'connect', 'main', 'web']);
    expect(connected.code).toBe(0);
    const env = JSON.parse((await slipway(['env', 'list', '--json'])).stdout);
    expect(env.data).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'DATABASE_URL', secret: true, value: null })]));

    expect((await slipway(['apps', 'create', 'img', '--source', 'image', '--image', p.images.v1, '--port', '8080', '--memory', '128'])).code).toBe(0);
    const imageDeploy = await slipway(['deploy', '--app', 'img', '--image', p.images.v2]);
    expect(imageDeploy.code).toBe(0);
    expect(imageDeploy.stdout).toMatch(/✔ Deployment #1 is live at http:\/\/img-/);
    // --image is for image apps: a usage error on an upload app, before any request that changes something.
    const wrong = await slipway(['deploy', '--image', p.images.v2]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^error source_mismatch: web is built from uploads/);
    // Deleting asks for --yes; deleted, its quota is free for the next app.
    expect((await slipway(['apps', 'delete', 'img'])).code).toBe(2);
    expect((await slipway(['apps', 'delete', 'img', '--yes'])).code).toBe(0);
    expect((await slipway(['apps', 'show', 'img'])).code).toBe(3);
  });

  it('deploy --github deploys a commit, then the head of the branch', async () => {
    const state = (await owner.get(`/v1/workspaces/${ws.id}/github/install-url`)).body.state as string;
    expect((await owner.get(`/v1/github/setup?installation_id=${installation.id}&state=${encodeURIComponent(state)}&setup_action=install`)).status).toBe(200);
    const created = await slipway(['apps', 'create', 'shop', '--source', 'github', '--github-installation', String(installation.id), '--repo', 'acme/shop', '--branch', 'main', '--memory', '128', '--json']);
    expect(created.stderr).toBe('');
    const shop = JSON.parse(created.stdout) as { url: string };
    const pinned = await slipway(['deploy', '--app', 'shop', '--github', '--commit', shas.v1!]);
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toContain(`✔ Deployment #1 is live at ${shop.url}`);
    await served('/', (b) => b === 'node v1 1m\n', shop.url);
    const head = await slipway(['deploy', '--app', 'shop', '--github', '--json']);
    expect(head.code).toBe(0);
    expect(JSON.parse(head.stdout)).toMatchObject({ status: 'live', source: 'github', commit: { sha: shas.v2 } });
    await served('/', (b) => b === 'node v2 1m\n', shop.url);
  });

  it('files, domains, metrics, members and tokens speak the API', async () => {
    const local = path.join(tmp, 'note.txt');
    writeFileSync(local, 'written by slipway files put\n');
    expect((await slipway(['files', 'put', local, 'data/note.txt'])).code).toBe(0);
    expect((await slipway(['files', 'ls', 'data'])).stdout).toMatch(/^note\.txt +29 B /m);
    expect((await slipway(['files', 'mv', 'data/note.txt', 'data/moved.txt'])).code).toBe(0);
    expect((await slipway(['files', 'get', 'data/moved.txt', '-'])).stdout).toBe('written by slipway files put\n');
    expect((await slipway(['files', 'rm', 'data', '-r'])).code).toBe(0);
    expect((await slipway(['files', 'ls', 'data'])).code).toBe(3);

    const added = await slipway(['domains', 'add', 'www.example.test']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^TXT +\S+ +\S+/m);
    const domains = await slipway(['domains', 'list', '--json']);
    expect(JSON.parse(domains.stdout)).toEqual((await owner.get(apiPath('/domains'))).body);
    expect((await slipway(['domains', 'rm', 'www.example.test'])).code).toBe(0);

    const metrics = await slipway(['metrics', '--range', '1h']);
    expect(metrics.code).toBe(0);
    expect(metrics.stdout).toMatch(/^cpu +.* now /m);
    expect((await slipway(['members', 'list'])).stdout).toContain(email);
    // lastUsedAt moves with the CLI's own calls: the rest must be the API's.
    const unused = (list: { data: { lastUsedAt?: unknown }[] }) => list.data.map(({ lastUsedAt: _used, ...t }) => t);
    const tokens = await slipway(['tokens', 'list', '--json']);
    expect(unused(JSON.parse(tokens.stdout))).toEqual(unused((await owner.get(`/v1/workspaces/${ws.id}/tokens`)).body));
  });

  it('logout forgets the token', async () => {
    expect((await slipway(['logout'])).code).toBe(0);
    const after = await slipway(['status']);
    expect(after.code).toBe(5);
    expect(after.stderr).toMatch(/^error not_logged_in: /);
  });
});
