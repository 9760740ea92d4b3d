// A GitHub API double for the GitHub-source tests and bench/github (issue 16). GitHub itself is out of reach here,
// so this HTTP server speaks the documented REST endpoints the platform uses, as GitHub answers them:
// - as the App: `GET /app/installations/{id}`, `POST /app/installations/{id}/access_tokens`, authenticated by an
//   RS256 JWT it verifies with the App's public key (iss, iat, exp at most 10 minutes ahead: 401 otherwise);
// - as an installation (`Authorization: token …` or `Bearer …`, a token it issued and not expired: 401 otherwise):
//   `GET /installation/repositories`, `/repos/{o}/{r}`, `/repositories/{id}`, `/repos/{o}/{r}/branches/{b}`,
//   `/repos/{o}/{r}/commits/{sha}`, `/repos/{o}/{r}/compare/{base}...{head}`, `POST /repos/{o}/{r}/statuses/{sha}`,
//   and `GET /repos/{o}/{r}/tarball/{ref}`: 302 to a short-lived, token-less URL of its own that serves
//   `git archive --format=tar.gz --prefix=<owner>-<repo>-<sha7>/` of the commit (GitHub's top folder);
// - a repository the installation (or the token's scope) does not reach is 404, as on GitHub.
// Repositories are real git repositories made in the test with `git` (`GitRepo`). Webhook deliveries are sent signed
// exactly as GitHub signs them (`X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body, hex>`).
import { execFile, spawn } from 'node:child_process';
import { createHmac, createVerify, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A git repository in a temporary folder, committed to with the `git` CLI (argv arrays only). */
export class GitRepo {
  private constructor(readonly dir: string) {}

  static async create(defaultBranch = 'main'): Promise<GitRepo> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-gitrepo-'));
    const repo = new GitRepo(dir);
    await repo.git('init', '-q', '-b', defaultBranch);
    await repo.git('config', 'user.email', 'dev@example.test');
    await repo.git('config', 'user.name', 'Test Dev');
    await repo.git('config', 'commit.gpgsign', 'false');
    return repo;
  }

  async git(...args: string[]): Promise<string> {
    const { stdout } = await run('git', args, { cwd: this.dir, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  }

  /** Writes the files (relative paths), deletes those mapped to null, commits on `branch`; answers the full sha. */
  async commit(files: Record<string, string | null>, message = 'change', branch?: string): Promise<string> {
    if (branch) {
      const exists = (await this.git('branch', '--list', branch)).trim() !== '';
      const current = (await this.git('rev-parse', '--abbrev-ref', 'HEAD').catch(() => '')).trim();
      if (current !== branch) await this.git('checkout', '-q', ...(exists ? [branch] : ['-b', branch]));
    }
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(this.dir, ...name.split('/'));
      if (content === null) {
        await rm(file, { force: true });
      } else {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content);
      }
    }
    await this.git('add', '-A');
    await this.git('commit', '-q', '--allow-empty', '-m', message);
    return (await this.git('rev-parse', 'HEAD')).trim();
  }

  async head(ref = 'HEAD'): Promise<string | null> {
    return (await this.git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`).catch(() => '')).trim() || null;
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

interface DoubleRepo {
  id: number;
  owner: string;
  name: string;
  repo: GitRepo;
  private: boolean;
}

interface DoubleInstallation {
  id: number;
  account: { login: string; type: string };
  suspended: boolean;
  repoIds: Set<number>;
}

interface IssuedToken {
  token: string;
  installationId: number;
  /** null: every repository of the installation. */
  repoIds: Set<number> | null;
  expiresAt: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  status: number;
}

export interface CommitStatus {
  repo: string;
  sha: string;
  state: string;
  targetUrl: string;
  description: string;
  context: string;
}

export interface GithubDouble {
  /** `http://127.0.0.1:<port>`: SLIPWAY_GITHUB_API_URL (and the web URL). */
  url: string;
  appId: string;
  slug: string;
  webhookSecret: string;
  /** The App's private key, PEM, in a 0600 file: SLIPWAY_GITHUB_PRIVATE_KEY_FILE. */
  privateKeyFile: string;
  /** The settings of a platform using this double. */
  env(): Record<string, string>;
  addRepository(fullName: string, repo: GitRepo, o?: { private?: boolean }): { id: number; fullName: string };
  addInstallation(account: string, repoIds: number[], o?: { type?: string }): { id: number };
  /** GitHub's side of an uninstall / a repository removed from an installation / a suspension. */
  deleteInstallation(id: number): void;
  removeRepositoryFromInstallation(installationId: number, repoId: number): void;
  addRepositoryToInstallation(installationId: number, repoId: number): void;
  /** Every installation token this double issued, in order. */
  issuedTokens(): string[];
  requests(): RecordedRequest[];
  statuses(): CommitStatus[];
  /** Signs `payload` as GitHub does and POSTs it to `target`; `secret` overrides the webhook secret (a forgery). */
  deliver(target: string, event: string, payload: unknown, o?: { deliveryId?: string; secret?: string; signature?: string }): Promise<{ status: number; body: unknown; deliveryId: string }>;
  /** A `push` payload as GitHub builds it from the repository: commits between before and after with their files. */
  pushPayload(fullName: string, o: { before: string | null; after: string; branch: string; installationId: number }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const ZERO = '0'.repeat(40);

/**
 * Starts the double on 127.0.0.1 (the agent, which downloads tarballs, runs on this host), or at `host` (a fleet's
 * bridge address: its servers' agents reach the host there), listening on `listen` (default `host`; `0.0.0.0` when the
 * address does not exist yet: a fleet's bridge is made after the control plane's settings that name the double's URL).
 */
export async function startGithubDouble(o: { appId?: string; slug?: string; host?: string; listen?: string } = {}): Promise<GithubDouble> {
  const appId = o.appId ?? String(100_000 + Math.floor(Math.random() * 800_000));
  const slug = o.slug ?? 'slipway-test';
  const webhookSecret = randomBytes(24).toString('hex');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-github-'));
  const privateKeyFile = path.join(keyDir, 'app.pem');
  await writeFile(privateKeyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  const pub: KeyObject = publicKey;

  let nextRepoId = 700_000_000 + Math.floor(Math.random() * 1_000_000);
  let nextInstallationId = 40_000_000 + Math.floor(Math.random() * 1_000_000);
  const repos = new Map<string, DoubleRepo>();
  const installations = new Map<number, DoubleInstallation>();
  const tokens = new Map<string, IssuedToken>();
  const issued: string[] = [];
  const recorded: RecordedRequest[] = [];
  const statuses: CommitStatus[] = [];
  /** Short-lived archive URLs: nonce → what to archive. */
  const archives = new Map<string, { repo: DoubleRepo; sha: string; expiresAt: number }>();
  let base = '';

  const byId = (id: number) => [...repos.values()].find((r) => r.id === id);
  const fullNameOf = (r: DoubleRepo) => `${r.owner}/${r.name}`;
  const repoJson = (r: DoubleRepo) => ({
    id: r.id,
    name: r.name,
    full_name: fullNameOf(r),
    private: r.private,
    owner: { login: r.owner },
    default_branch: 'main',
    html_url: `${base}/${fullNameOf(r)}`,
  });
  const commitJson = async (r: DoubleRepo, sha: string) => {
    const [message, authorName, email] = (await r.repo.git('show', '-s', '--format=%B%x00%an%x00%ae', sha)).split('\0');
    return {
      sha,
      html_url: `${base}/${fullNameOf(r)}/commit/${sha}`,
      commit: { message: (message ?? '').trim(), author: { name: authorName, email: (email ?? '').trim() } },
      author: { login: 'test-dev' },
      files: undefined as unknown,
    };
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: Error) => send(res, 500, { message: e.message }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://double');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const authorization = req.headers.authorization ?? null;
    res.on('finish', () => recorded.push({ method: req.method ?? '', path: url.pathname, authorization, status: res.statusCode }));
    const body = await readBody(req);

    // The token-less archive URL the tarball endpoint redirects to (GitHub's codeload).
    if (parts[0] === '_codeload' && req.method === 'GET') {
      const a = archives.get(parts[1] ?? '');
      if (!a || a.expiresAt < Date.now()) return send(res, 404, { message: 'Not Found' });
      const prefix = `${a.repo.owner}-${a.repo.name}-${a.sha.slice(0, 7)}/`;
      res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-disposition': `attachment; filename=${prefix.slice(0, -1)}.tar.gz` });
      const git = spawn('git', ['archive', '--format=tar.gz', `--prefix=${prefix}`, a.sha], { cwd: a.repo.repo.dir, stdio: ['ignore', 'pipe', 'ignore'] });
      git.stdout.pipe(res);
      return;
    }

    if (parts[0] === 'app' && parts[1] === 'installations') {
      if (!verifyJwt(authorization)) return send(res, 401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' });
      const inst = installations.get(Number(parts[2]));
      if (!inst) return send(res, 404, { message: 'Not Found' });
      if (req.method === 'GET' && parts.length === 3) return send(res, 200, installationJson(inst));
      if (req.method === 'POST' && parts[3] === 'access_tokens') {
        if (inst.suspended) return send(res, 403, { message: 'This installation has been suspended' });
        const asked = body.length ? (JSON.parse(body.toString('utf8')) as { repository_ids?: number[] }) : {};
        if (asked.repository_ids?.some((id) => !inst.repoIds.has(id))) return send(res, 422, { message: 'There is at least one repository that does not exist or is not accessible to the parent installation.' });
        const token = `ghs_${randomBytes(18).toString('base64url')}`;
        const expiresAt = Date.now() + 60 * 60 * 1000;
        tokens.set(token, { token, installationId: inst.id, repoIds: asked.repository_ids ? new Set(asked.repository_ids) : null, expiresAt });
        issued.push(token);
        return send(res, 201, { token, expires_at: new Date(expiresAt).toISOString(), permissions: { contents: 'read', metadata: 'read' }, repository_selection: 'selected' });
      }
      return send(res, 404, { message: 'Not Found' });
    }

    // Everything else is an installation's.
    const t = tokenOf(authorization);
    if (!t) return send(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const inst = installations.get(t.installationId);
    if (!inst) return send(res, 401, { message: 'Bad credentials' });
    const reaches = (r: DoubleRepo | undefined): r is DoubleRepo => !!r && inst.repoIds.has(r.id) && (t.repoIds === null || t.repoIds.has(r.id));

    if (req.method === 'GET' && parts[0] === 'installation' && parts[1] === 'repositories') {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const all = [...inst.repoIds].map(byId).filter(reaches).sort((a, b) => a.id - b.id);
      return send(res, 200, { total_count: all.length, repository_selection: 'selected', repositories: all.slice((page - 1) * perPage, page * perPage).map(repoJson) });
    }
    if (req.method === 'GET' && parts[0] === 'repositories' && parts.length === 2) {
      const r = byId(Number(parts[1]));
      return reaches(r) ? send(res, 200, repoJson(r)) : send(res, 404, { message: 'Not Found' });
    }
    if (parts[0] !== 'repos' || parts.length < 3) return send(res, 404, { message: 'Not Found' });
    const r = repos.get(`${parts[1]}/${parts[2]}`.toLowerCase());
    if (!reaches(r)) return send(res, 404, { message: 'Not Found' });
    const rest = parts.slice(3);
    if (req.method === 'GET' && rest.length === 0) return send(res, 200, repoJson(r));
    if (req.method === 'GET' && rest[0] === 'branches' && rest.length >= 2) {
      const branch = rest.slice(1).join('/');
      const sha = await r.repo.head(`refs/heads/${branch}`);
      if (!sha) return send(res, 404, { message: 'Branch not found' });
      return send(res, 200, { name: branch, commit: await commitJson(r, sha), protected: false });
    }
    if (req.method === 'GET' && rest[0] === 'commits' && rest.length === 2) {
      const sha = /^[0-9a-f]{4,40}$/.test(rest[1]!) ? await r.repo.head(rest[1]!) : null;
      if (!sha) return send(res, 422, { message: `No commit found for SHA: ${rest[1]}` });
      return send(res, 200, await commitJson(r, sha));
    }
    if (req.method === 'GET' && rest[0] === 'compare' && rest.length === 2) {
      const [from, to] = rest[1]!.split('...');
      const a = from ? await r.repo.head(from) : null;
      const b = to ? await r.repo.head(to) : null;
      if (!a || !b) return send(res, 404, { message: 'Not Found' });
      const names = (await r.repo.git('diff', '--name-only', a, b)).split('\n').filter(Boolean);
      return send(res, 200, { status: 'ahead', files: names.map((filename) => ({ filename, status: 'modified' })) });
    }
    if (req.method === 'POST' && rest[0] === 'statuses' && rest.length === 2) {
      const s = JSON.parse(body.toString('utf8')) as { state: string; target_url?: string; description?: string; context?: string };
      statuses.push({ repo: fullNameOf(r), sha: rest[1]!, state: s.state, targetUrl: s.target_url ?? '', description: s.description ?? '', context: s.context ?? 'default' });
      return send(res, 201, { state: s.state });
    }
    if (req.method === 'GET' && rest[0] === 'tarball' && rest.length >= 1) {
      const ref = rest.slice(1).join('/') || 'main';
      const sha = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(ref) ? await r.repo.head(ref) : null;
      if (!sha) return send(res, 404, { message: 'Not Found' });
      const nonce = randomBytes(16).toString('hex');
      archives.set(nonce, { repo: r, sha, expiresAt: Date.now() + 5 * 60 * 1000 });
      res.writeHead(302, { location: `${base}/_codeload/${nonce}` });
      res.end();
      return;
    }
    return send(res, 404, { message: 'Not Found' });
  }

  function installationJson(i: DoubleInstallation) {
    return {
      id: i.id,
      account: { login: i.account.login, type: i.account.type },
      app_id: Number(appId),
      app_slug: slug,
      repository_selection: 'selected',
      suspended_at: i.suspended ? new Date().toISOString() : null,
    };
  }

  function verifyJwt(header: string | null): boolean {
    const m = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(header ?? '');
    if (!m) return false;
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${m[1]}.${m[2]}`);
    if (!verifier.verify(pub, Buffer.from(m[3]!, 'base64url'))) return false;
    try {
      const head = JSON.parse(Buffer.from(m[1]!, 'base64url').toString()) as { alg?: string };
      const claims = JSON.parse(Buffer.from(m[2]!, 'base64url').toString()) as { iat?: number; exp?: number; iss?: unknown };
      const now = Math.floor(Date.now() / 1000);
      if (head.alg !== 'RS256' || String(claims.iss) !== appId) return false;
      if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return false;
      // GitHub: exp at most 10 minutes after iat... of now; iat not in the future (60 s of drift allowed).
      return claims.iat <= now + 60 && claims.exp > now && claims.exp - now <= 600 && claims.exp > claims.iat;
    } catch {
      return false;
    }
  }

  function tokenOf(header: string | null): IssuedToken | null {
    const m = /^(?:token|Bearer) (\S+)$/.exec(header ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    return t && t.expiresAt > Date.now() ? t : null;
  }

  const host = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, o.listen ?? host, resolve));
  base = `http://${host}:${(server.address() as AddressInfo).port}`;

  const sign = (secret: string, raw: Buffer) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

  return {
    url: base,
    appId,
    slug,
    webhookSecret,
    privateKeyFile,
    env: () => ({
      SLIPWAY_GITHUB_APP_ID: appId,
      SLIPWAY_GITHUB_PRIVATE_KEY_FILE: privateKeyFile,
      SLIPWAY_GITHUB_WEBHOOK_SECRET: webhookSecret,
      SLIPWAY_GITHUB_APP_SLUG: slug,
      SLIPWAY_GITHUB_API_URL: base,
      SLIPWAY_GITHUB_WEB_URL: base,
    }),
    addRepository(fullName, repo, opts = {}) {
      const [owner, name] = fullName.split('/') as [string, string];
      const r: DoubleRepo = { id: nextRepoId++, owner, name, repo, private: opts.private ?? true };
      repos.set(fullName.toLowerCase(), r);
      return { id: r.id, fullName };
    },
    addInstallation(account, repoIds, opts = {}) {
      const i: DoubleInstallation = { id: nextInstallationId++, account: { login: account, type: opts.type ?? 'Organization' }, suspended: false, repoIds: new Set(repoIds) };
      installations.set(i.id, i);
      return { id: i.id };
    },
    deleteInstallation(id) {
      installations.delete(id);
      for (const [k, t] of tokens) if (t.installationId === id) tokens.delete(k);
    },
    removeRepositoryFromInstallation(installationId, repoId) {
      installations.get(installationId)?.repoIds.delete(repoId);
    },
    addRepositoryToInstallation(installationId, repoId) {
      installations.get(installationId)?.repoIds.add(repoId);
    },
    issuedTokens: () => [...issued],
    requests: () => [...recorded],
    statuses: () => [...statuses],
    async deliver(target, event, payload, opts = {}) {
      const deliveryId = opts.deliveryId ?? randomUUID();
      const raw = Buffer.from(JSON.stringify(payload));
      const res = await fetch(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'GitHub-Hookshot/slipway-double',
          'x-github-event': event,
          'x-github-delivery': deliveryId,
          'x-github-hook-id': '1',
          'x-github-hook-installation-target-type': 'integration',
          'x-github-hook-installation-target-id': appId,
          'x-hub-signature-256': opts.signature ?? sign(opts.secret ?? webhookSecret, raw),
          'x-hub-signature': `sha1=${createHmac('sha1', opts.secret ?? webhookSecret).update(raw).digest('hex')}`,
        },
        body: raw,
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, deliveryId };
    },
    async pushPayload(fullName, p) {
      const r = repos.get(fullName.toLowerCase());
      if (!r) throw new Error(`no repository ${fullName}`);
      const range = p.before && p.before !== ZERO ? `${p.before}..${p.after}` : p.after;
      const shas = (await r.repo.git('rev-list', '--reverse', range)).split('\n').filter(Boolean).slice(-20);
      const commits = [];
      for (const sha of shas) {
        const c = await commitJson(r, sha);
        const changes = (await r.repo.git('diff-tree', '--no-commit-id', '--name-status', '-r', '--root', sha)).split('\n').filter(Boolean);
        const of = (k: string) => changes.filter((l) => l.startsWith(k)).map((l) => l.split('\t').at(-1)!);
        commits.push({
          id: sha,
          tree_id: (await r.repo.git('rev-parse', `${sha}^{tree}`)).trim(),
          distinct: true,
          message: c.commit.message,
          timestamp: new Date().toISOString(),
          url: c.html_url,
          author: { name: c.commit.author.name, email: c.commit.author.email, username: 'test-dev' },
          committer: { name: c.commit.author.name, email: c.commit.author.email, username: 'test-dev' },
          added: of('A'),
          removed: of('D'),
          modified: of('M'),
        });
      }
      return {
        ref: `refs/heads/${p.branch}`,
        before: p.before ?? ZERO,
        after: p.after,
        created: !p.before,
        deleted: false,
        forced: false,
        base_ref: null,
        compare: `${base}/${fullName}/compare/${(p.before ?? ZERO).slice(0, 12)}...${p.after.slice(0, 12)}`,
        commits,
        head_commit: commits.at(-1) ?? null,
        repository: repoJson(r),
        pusher: { name: 'test-dev', email: 'dev@example.test' },
        sender: { login: 'test-dev', id: 1, type: 'User' },
        installation: { id: p.installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u' },
      };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await rm(keyDir, { recursive: true, force: true });
    },
  };
}

/** The GitHub App settings of a platform using the double (the API's `github` dependency). */
export async function githubAppOf(gh: GithubDouble): Promise<{ appId: string; privateKeyPem: string; webhookSecret: string; slug: string; apiUrl: string; webUrl: string }> {
  return { appId: gh.appId, privateKeyPem: await readFile(gh.privateKeyFile, 'utf8'), webhookSecret: gh.webhookSecret, slug: gh.slug, apiUrl: gh.url, webUrl: gh.url };
}

/** An `installation` webhook payload (created, deleted, suspend, unsuspend). */
export function installationPayload(action: string, installationId: number, account: string): Record<string, unknown> {
  return { action, installation: { id: installationId, account: { login: account, type: 'Organization' }, repository_selection: 'selected' }, sender: { login: 'test-dev' } };
}

/** An `installation_repositories` webhook payload. */
export function installationRepositoriesPayload(
  action: 'added' | 'removed',
  installationId: number,
  repositories: { id: number; fullName: string }[],
): Record<string, unknown> {
  const list = repositories.map((r) => ({ id: r.id, full_name: r.fullName, name: r.fullName.split('/')[1], private: true }));
  return {
    action,
    installation: { id: installationId, account: { login: 'test-org', type: 'Organization' } },
    repository_selection: 'selected',
    repositories_added: action === 'added' ? list : [],
    repositories_removed: action === 'removed' ? list : [],
    sender: { login: 'test-dev' },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const raw = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(raw) });
  res.end(raw);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}
