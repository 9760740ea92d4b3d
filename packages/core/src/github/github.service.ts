import type { WorkspaceAccess } from '../auth/actor';
import { AppError } from '../errors';
import { isValidFilePath } from '../files/file-path';
import type { Clock } from '../ports/clock';
import { InstallStates } from './install-state';
import {
  githubSettingsOf,
  type CommitInfo,
  type GithubApi,
  type GithubAppSettings,
  type GithubInstallationRecord,
  type GithubInstallationRepository,
  type GithubSourceSettings,
} from './github.ports';

/** The `github` object of a create request (API-DECISIONS: Apps). */
export interface GithubSourceInput {
  installationId: number;
  repoId?: number;
  repoFullName: string;
  branch: string;
  rootDir?: string;
  autoDeploy?: boolean;
  watchRootOnly?: boolean;
}

export interface GithubInstallationView {
  id: number;
  account: { login: string; type: string };
  suspended: boolean;
  createdAt: string;
}

export interface GithubServiceDeps {
  /** null: no GitHub App is configured; every operation answers 503 `github_not_configured`. */
  api: GithubApi | null;
  settings: Pick<GithubAppSettings, 'slug' | 'webUrl'> | null;
  installations: GithubInstallationRepository;
  /** Keys the install flow's `state` (HMAC): the platform's session secret. */
  stateSecret: string;
  clock: Clock;
}

const notConfigured = () => new AppError('github_not_configured', 'No GitHub App is configured on this platform (SLIPWAY_GITHUB_APP_ID and its settings)');
const invalid = (field: string, message: string) => new AppError('validation_failed', 'The request body is invalid', [{ field, message }]);

/**
 * GitHub as a source, request side: the install URL with its signed `state`, the setup callback that links an
 * installation to the workspace the state names (after asking GitHub about it), the installations and repositories
 * a client picks from, and the checks of an app's `github` settings and of the commit a deployment builds.
 */
export class GithubService {
  private readonly states: InstallStates;

  constructor(private readonly deps: GithubServiceDeps) {
    this.states = new InstallStates(deps.stateSecret);
  }

  get configured(): boolean {
    return this.deps.api !== null;
  }

  installUrl(access: WorkspaceAccess): { url: string; state: string; expiresAt: string } {
    const { settings } = this.require();
    const { state, expiresAt } = this.states.issue(access.workspace.id, this.deps.clock().getTime());
    const url = `${settings.webUrl}/apps/${encodeURIComponent(settings.slug)}/installations/new?state=${encodeURIComponent(state)}`;
    return { url, state, expiresAt: expiresAt.toISOString() };
  }

  /**
   * The setup callback: GitHub sends the browser back with `installation_id` (anyone can forge it) and our `state`.
   * The state proves the workspace; GitHub proves the installation exists for this App.
   */
  async setup(installationId: number, state: string): Promise<{ workspaceId: string; installation: GithubInstallationView }> {
    const { api } = this.require();
    const proof = this.states.verify(state, this.deps.clock().getTime());
    if (!proof) throw new AppError('github_state_invalid', 'The state is not one this platform issued, or it expired: start the installation again from the install URL');
    const info = await api.installation(installationId);
    if (!info) throw new AppError('github_installation_not_found', `GitHub knows no installation ${installationId} of this platform's App`);
    const linked = await this.deps.installations.link({
      installationId,
      workspaceId: proof.workspaceId,
      accountLogin: info.account.login,
      accountType: info.account.type,
      suspended: info.suspended,
    });
    if (linked === 'taken') throw new AppError('github_installation_taken', `The installation ${installationId} is linked to another workspace`);
    return { workspaceId: proof.workspaceId, installation: view(linked) };
  }

  async listInstallations(access: WorkspaceAccess): Promise<GithubInstallationView[]> {
    this.require();
    return (await this.deps.installations.list({ workspaceId: access.workspace.id })).map(view);
  }

  async listRepositories(access: WorkspaceAccess, installationId: number, page: { page: number; perPage: number }) {
    const { api } = this.require();
    await this.installationOf(access.workspace.id, installationId);
    const { total, repositories } = await api.repositories(installationId, page);
    return {
      data: repositories.map((r) => ({ id: r.id, fullName: r.fullName, private: r.private, defaultBranch: r.defaultBranch })),
      page: page.page,
      perPage: page.perPage,
      total,
      nextPage: page.page * page.perPage < total ? page.page + 1 : null,
    };
  }

  /**
   * The `github` settings of an app, checked with GitHub: the installation linked to this workspace (404), the
   * repository reachable by it (404; keyed by its id, which survives renames), the branch (404), rootDir a relative
   * path with the files API's rules (400). `current` is the app's settings on update (a PATCH merges over them).
   */
  async checkSource(workspaceId: string, input: Partial<GithubSourceInput>, current: GithubSourceSettings | null = null): Promise<GithubSourceSettings> {
    const { api } = this.require();
    const merged = {
      installationId: input.installationId ?? current?.installationId,
      repoFullName: input.repoFullName ?? current?.repoFullName,
      repoId: input.repoId ?? (input.repoFullName === undefined ? current?.repoId : undefined),
      branch: input.branch ?? current?.branch,
      rootDir: input.rootDir ?? current?.rootDir ?? '',
      autoDeploy: input.autoDeploy ?? current?.autoDeploy ?? true,
      watchRootOnly: input.watchRootOnly ?? current?.watchRootOnly ?? false,
    };
    if (!merged.installationId) throw invalid('/github/installationId', 'is required');
    if (!merged.repoFullName) throw invalid('/github/repoFullName', 'is required');
    if (!merged.branch) throw invalid('/github/branch', 'is required');
    const rootDir = merged.rootDir.replace(/\/+$/, '');
    if (!isValidFilePath(rootDir, { allowRoot: true })) {
      throw invalid('/github/rootDir', 'must be a relative path inside the repository (segments separated by /, no . or .., no backslash or control characters)');
    }
    if (/[^A-Za-z0-9._@+\-/]/.test(rootDir)) throw invalid('/github/rootDir', 'may hold letters, digits and . _ @ + - only (the build settings\' rule)');
    if (/^[.~-]|[\s:^?*[\\]|\.\.|@\{|\/\.|\.lock$|\/$/.test(merged.branch)) throw invalid('/github/branch', 'is not a valid branch name');
    await this.installationOf(workspaceId, merged.installationId);
    const repo = merged.repoId ? await api.repositoryById(merged.installationId, merged.repoId) : await api.repository(merged.installationId, merged.repoFullName);
    if (!repo) throw new AppError('github_repository_not_found', `The installation ${merged.installationId} cannot reach the repository ${merged.repoId ?? merged.repoFullName}`);
    if (merged.repoId && repo.fullName.toLowerCase() !== merged.repoFullName.toLowerCase() && input.repoFullName !== undefined) {
      throw invalid('/github/repoId', `names the repository ${repo.fullName}, not ${merged.repoFullName}`);
    }
    const head = await api.branchHead(merged.installationId, repo.fullName, merged.branch);
    if (!head) throw new AppError('github_branch_not_found', `The repository ${repo.fullName} has no branch ${merged.branch}`);
    return {
      installationId: merged.installationId,
      repoId: repo.id,
      repoFullName: repo.fullName,
      branch: merged.branch,
      rootDir,
      autoDeploy: merged.autoDeploy,
      watchRootOnly: merged.watchRootOnly,
      accessLost: false,
      accessLostReason: null,
    };
  }

  /**
   * The commit a deployment of the app builds: `commitSha` (reachable in the repository: 404 otherwise), or the
   * head of the app's branch. 409 `github_access_lost` while the app's access is gone.
   */
  async commitToDeploy(workspaceId: string, rawSettings: Record<string, unknown> | null, commitSha: string | undefined): Promise<CommitInfo> {
    const { api } = this.require();
    const s = githubSettingsOf(rawSettings);
    if (!s) throw new AppError('validation_failed', 'The app has no GitHub settings');
    if (s.accessLost) throw new AppError('github_access_lost', `The app cannot read ${s.repoFullName} any more: ${s.accessLostReason ?? 'the GitHub App lost access'}`);
    await this.installationOf(workspaceId, s.installationId).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'github_installation_not_found') throw new AppError('github_access_lost', `The installation ${s.installationId} is no longer linked to this workspace`);
      throw e;
    });
    const repo = await api.repositoryById(s.installationId, s.repoId);
    if (!repo) throw new AppError('github_access_lost', `The installation ${s.installationId} cannot reach the repository ${s.repoFullName} any more`);
    const c = commitSha ? await api.commit(s.installationId, repo.fullName, commitSha) : await api.branchHead(s.installationId, repo.fullName, s.branch);
    if (!c) {
      throw commitSha
        ? new AppError('github_commit_not_found', `The repository ${repo.fullName} has no commit ${commitSha}`)
        : new AppError('github_branch_not_found', `The repository ${repo.fullName} has no branch ${s.branch}`);
    }
    return { sha: c.sha, message: c.message, author: c.author, branch: s.branch, url: c.url || `${this.deps.settings!.webUrl}/${repo.fullName}/commit/${c.sha}` };
  }

  private async installationOf(workspaceId: string, installationId: number): Promise<GithubInstallationRecord> {
    const found = await this.deps.installations.find({ workspaceId, installationId });
    if (!found) throw new AppError('github_installation_not_found', `The installation ${installationId} is not linked to this workspace`);
    return found;
  }

  private require(): { api: GithubApi; settings: Pick<GithubAppSettings, 'slug' | 'webUrl'> } {
    if (!this.deps.api || !this.deps.settings) throw notConfigured();
    return { api: this.deps.api, settings: this.deps.settings };
  }
}

function view(i: GithubInstallationRecord): GithubInstallationView {
  return { id: i.installationId, account: { login: i.accountLogin, type: i.accountType }, suspended: i.suspended, createdAt: i.createdAt.toISOString() };
}
