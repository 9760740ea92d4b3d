import { createPrivateKey, type KeyObject } from 'node:crypto';
import { AppError } from '../errors';
import { appJwt } from './app-jwt';
import type { CommitState, GithubApi, GithubAppSettings, GithubCommit, GithubInstallationInfo, GithubRepository } from './github.ports';

/** A token is used until this long before it expires, then a new one is asked for. */
const TOKEN_MARGIN_MS = 5 * 60 * 1000;
const TIMEOUT_MS = 10_000;
/** A commit message is kept on the deployment up to this many characters. */
export const MAX_MESSAGE = 2000;

type Json = Record<string, unknown>;

/**
 * GitHub's REST API over fetch: as the App (a fresh RS256 JWT per request, cheap) for installations and their tokens,
 * as an installation (its token, cached until 5 minutes before expiry) for repositories, branches, commits and
 * statuses. Works against github.com and GitHub Enterprise Server (`apiUrl`). Tokens are never logged.
 */
export class GithubClient implements GithubApi {
  private readonly key: KeyObject;
  private readonly tokens = new Map<string, { token: string; expiresAt: Date }>();

  constructor(
    private readonly settings: GithubAppSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createPrivateKey(settings.privateKeyPem);
  }

  async installation(installationId: number): Promise<GithubInstallationInfo | null> {
    const r = await this.call('GET', `/app/installations/${installationId}`, { as: 'app' });
    if (r.status === 404) return null;
    const body = await this.json(r, 'read the installation');
    const account = (body.account ?? {}) as Json;
    return {
      id: Number(body.id),
      account: { login: String(account.login ?? ''), type: String(account.type ?? '') },
      suspended: body.suspended_at !== null && body.suspended_at !== undefined,
      repositorySelection: String(body.repository_selection ?? 'all'),
    };
  }

  async installationToken(installationId: number, repoId?: number): Promise<{ token: string; expiresAt: Date }> {
    const cacheKey = `${installationId}:${repoId ?? '*'}`;
    const cached = this.tokens.get(cacheKey);
    if (cached && cached.expiresAt.getTime() - TOKEN_MARGIN_MS > this.now()) return cached;
    const body = repoId ? { repository_ids: [repoId], permissions: { contents: 'read' } } : undefined;
    const r = await this.call('POST', `/app/installations/${installationId}/access_tokens`, { as: 'app', body });
    if (r.status === 404) throw new AppError('github_access_lost', `The GitHub App installation ${installationId} is gone`);
    if (r.status === 403 || r.status === 422) {
      throw new AppError('github_access_lost', `The GitHub App installation ${installationId} cannot read that repository any more (suspended or removed from it)`);
    }
    const json = await this.json(r, 'get an installation token');
    const token = { token: String(json.token), expiresAt: new Date(String(json.expires_at)) };
    this.tokens.set(cacheKey, token);
    return token;
  }

  async repositories(installationId: number, page: { page: number; perPage: number }): Promise<{ total: number; repositories: GithubRepository[] }> {
    const r = await this.call('GET', `/installation/repositories?per_page=${page.perPage}&page=${page.page}`, { as: installationId });
    const body = await this.json(r, 'list the repositories');
    return { total: Number(body.total_count ?? 0), repositories: ((body.repositories ?? []) as Json[]).map(toRepository) };
  }

  async repository(installationId: number, fullName: string): Promise<GithubRepository | null> {
    const r = await this.call('GET', `/repos/${repoPath(fullName)}`, { as: installationId });
    if (r.status === 404 || r.status === 403) return null;
    return toRepository(await this.json(r, 'read the repository'));
  }

  async repositoryById(installationId: number, repoId: number): Promise<GithubRepository | null> {
    const r = await this.call('GET', `/repositories/${repoId}`, { as: installationId });
    if (r.status === 404 || r.status === 403) return null;
    return toRepository(await this.json(r, 'read the repository'));
  }

  async branchHead(installationId: number, fullName: string, branch: string): Promise<GithubCommit | null> {
    const r = await this.call('GET', `/repos/${repoPath(fullName)}/branches/${encodeURIComponent(branch)}`, { as: installationId });
    if (r.status === 404) return null;
    const body = await this.json(r, 'read the branch');
    return toCommit((body.commit ?? {}) as Json);
  }

  async commit(installationId: number, fullName: string, sha: string): Promise<GithubCommit | null> {
    const r = await this.call('GET', `/repos/${repoPath(fullName)}/commits/${encodeURIComponent(sha)}`, { as: installationId });
    if (r.status === 404 || r.status === 422) return null;
    return toCommit(await this.json(r, 'read the commit'));
  }

  async changedFiles(installationId: number, fullName: string, base: string, head: string): Promise<string[] | null> {
    try {
      const r = await this.call('GET', `/repos/${repoPath(fullName)}/compare/${encodeURIComponent(base)}...${encodeURIComponent(head)}`, { as: installationId });
      if (!r.ok) return null;
      const body = (await r.json()) as Json;
      const files = (body.files ?? []) as Json[];
      // GitHub lists at most 300 files of a comparison: past that it cannot say which changed.
      if (files.length >= 300) return null;
      return files.flatMap((f) => [String(f.filename ?? ''), ...(f.previous_filename ? [String(f.previous_filename)] : [])]).filter(Boolean);
    } catch {
      return null;
    }
  }

  async setCommitStatus(installationId: number, fullName: string, sha: string, status: { state: CommitState; targetUrl: string; description: string; context: string }): Promise<void> {
    const r = await this.call('POST', `/repos/${repoPath(fullName)}/statuses/${encodeURIComponent(sha)}`, {
      as: installationId,
      body: { state: status.state, target_url: status.targetUrl, description: status.description.slice(0, 140), context: status.context },
    });
    // 403: the App was not granted `statuses: write`; the platform goes on without statuses.
    if (!r.ok && r.status !== 403 && r.status !== 404) await this.json(r, 'set the commit status');
  }

  private async call(method: string, path: string, o: { as: 'app' | number; body?: unknown }): Promise<Response> {
    const auth = o.as === 'app' ? `Bearer ${appJwt(this.settings.appId, this.key, this.now())}` : `token ${(await this.installationToken(o.as)).token}`;
    try {
      return await fetch(`${this.settings.apiUrl}${path}`, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: auth,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'slipway',
          ...(o.body ? { 'content-type': 'application/json' } : {}),
        },
        body: o.body ? JSON.stringify(o.body) : undefined,
        redirect: 'follow',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new AppError('github_unavailable', `GitHub could not be reached (${(e as Error).message})`);
    }
  }

  private async json(r: Response, what: string): Promise<Json> {
    if (r.ok) {
      try {
        return (await r.json()) as Json;
      } catch {
        throw new AppError('github_unavailable', `GitHub answered something that is not JSON when trying to ${what}`);
      }
    }
    const text = await r.text().catch(() => '');
    let message = '';
    try {
      message = String((JSON.parse(text) as Json).message ?? '');
    } catch {
      message = text.slice(0, 200);
    }
    if (r.status === 401) throw new AppError('github_unavailable', `GitHub refused the platform's GitHub App credentials when trying to ${what} (${message}): check its app id and private key`);
    throw new AppError('github_unavailable', `GitHub answered ${r.status} when trying to ${what}${message ? ` (${message})` : ''}`);
  }
}

const repoPath = (fullName: string) => fullName.split('/').map(encodeURIComponent).join('/');

function toRepository(r: Json): GithubRepository {
  return { id: Number(r.id), fullName: String(r.full_name), private: r.private === true, defaultBranch: String(r.default_branch ?? 'main') };
}

function toCommit(c: Json): GithubCommit {
  const inner = (c.commit ?? {}) as Json;
  const author = (inner.author ?? {}) as Json;
  const login = ((c.author ?? {}) as Json | null)?.login;
  return {
    sha: String(c.sha),
    message: String(inner.message ?? '').slice(0, MAX_MESSAGE),
    author: String(login ?? author.name ?? ''),
    url: String(c.html_url ?? ''),
  };
}
