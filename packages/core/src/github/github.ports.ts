// GitHub as a source (issue 16): what the core needs of GitHub's REST API and of the database.

/** The platform's GitHub App (config.github): null when it is not configured (GitHub operations answer 503). */
export interface GithubAppSettings {
  appId: string;
  privateKeyPem: string;
  webhookSecret: string;
  slug: string;
  /** https://api.github.com, or https://<host>/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  /** https://github.com, or https://<host>: the install page and commit links. */
  webUrl: string;
}

/** The `github` settings of an app, as stored on its row (JSON). */
export interface GithubSourceSettings {
  installationId: number;
  repoId: number;
  repoFullName: string;
  branch: string;
  rootDir: string;
  autoDeploy: boolean;
  watchRootOnly: boolean;
  /** The installation or the repository access is gone (webhook events); deployments answer 409 until it is back. */
  accessLost: boolean;
  accessLostReason: string | null;
}

/** What a deployment of a GitHub app records of its commit. */
export interface CommitInfo {
  sha: string;
  message: string;
  author: string;
  branch: string;
  url: string;
}

export interface GithubInstallationInfo {
  id: number;
  account: { login: string; type: string };
  suspended: boolean;
  /** `all` or `selected` repositories. */
  repositorySelection: string;
}

export interface GithubRepository {
  id: number;
  fullName: string;
  private: boolean;
  defaultBranch: string;
}

export interface GithubCommit {
  sha: string;
  message: string;
  author: string;
  url: string;
}

export type CommitState = 'pending' | 'success' | 'failure' | 'error';

/**
 * GitHub's REST API as the platform uses it, authenticated as the App (JWT) or as one installation (its token).
 * Answers null where GitHub answers 404 (or 422 for an unknown commit); throws AppError otherwise.
 */
export interface GithubApi {
  installation(installationId: number): Promise<GithubInstallationInfo | null>;
  /** An installation token (cached until 5 minutes before it expires); scoped to one repository when given. */
  installationToken(installationId: number, repoId?: number): Promise<{ token: string; expiresAt: Date }>;
  repositories(installationId: number, page: { page: number; perPage: number }): Promise<{ total: number; repositories: GithubRepository[] }>;
  repository(installationId: number, fullName: string): Promise<GithubRepository | null>;
  repositoryById(installationId: number, repoId: number): Promise<GithubRepository | null>;
  branchHead(installationId: number, fullName: string, branch: string): Promise<GithubCommit | null>;
  commit(installationId: number, fullName: string, sha: string): Promise<GithubCommit | null>;
  /** Files changed between two commits; null when GitHub could not say (the caller deploys). */
  changedFiles(installationId: number, fullName: string, base: string, head: string): Promise<string[] | null>;
  setCommitStatus(installationId: number, fullName: string, sha: string, status: { state: CommitState; targetUrl: string; description: string; context: string }): Promise<void>;
}

export interface GithubInstallationRecord {
  installationId: number;
  workspaceId: string;
  accountLogin: string;
  accountType: string;
  suspended: boolean;
  createdAt: Date;
}

/** Installations linked to workspaces. Request side: reads take the workspace. */
export interface GithubInstallationRepository {
  /** Links the installation to the workspace; 'taken' when another workspace holds it. */
  link(input: Omit<GithubInstallationRecord, 'createdAt' | 'suspended'> & { suspended: boolean }): Promise<GithubInstallationRecord | 'taken'>;
  list(scope: { workspaceId: string }): Promise<GithubInstallationRecord[]>;
  find(scope: { workspaceId: string; installationId: number }): Promise<GithubInstallationRecord | null>;
}

export interface GithubDeliveryRecord {
  id: string;
  event: string;
  payload: unknown;
  status: 'queued' | 'done' | 'failed';
}

/** Webhook deliveries by their `X-GitHub-Delivery` id. */
export interface GithubDeliveryRepository {
  /**
   * Inserts the delivery; false when one with that id was received before (a redelivery: nothing new happens), unless
   * that one failed for good: then it is taken again (queued with the new payload).
   */
  record(id: string, event: string, payload: unknown): Promise<'recorded' | 'retaken' | 'duplicate'>;
  get(id: string): Promise<GithubDeliveryRecord | null>;
  /** Marks it handled and clears its payload. */
  finish(id: string, status: 'done' | 'failed', result: string): Promise<void>;
  /** Forgets it again (it could not be queued): a redelivery is then taken. */
  forget(id: string): Promise<void>;
  /** Removes handled deliveries received before `before` (the table stays bounded); answers how many. */
  prune(before: Date): Promise<number>;
}

/** An app of source github, as the webhook handler reads it (job side, across workspaces). */
export interface GithubAppRow {
  id: string;
  workspaceId: string;
  cpuMillis: number;
  memoryMb: number;
  port: number | null;
  github: GithubSourceSettings;
}

/** Job side: the apps of a repository, the state of installations, access flags. */
export interface GithubJobStore {
  /** Apps of source github (not deleted) on this repository (by id), in workspaces that are neither deleted nor suspended. */
  appsOfRepository(repoId: number): Promise<GithubAppRow[]>;
  /** Apps of source github (not deleted) of this installation. */
  appsOfInstallation(installationId: number): Promise<GithubAppRow[]>;
  /** Sets or clears `accessLost` (and the reason) on the given apps' github settings. */
  setAccessLost(appIds: string[], reason: string | null): Promise<void>;
  setInstallationSuspended(installationId: number, suspended: boolean): Promise<void>;
  removeInstallation(installationId: number): Promise<void>;
  /** Queued deployments of the app that came from a push (source github, no user), to be superseded. */
  queuedDeployments(appId: string): Promise<{ id: string; number: number }[]>;
}

/** Defaults of an app's github settings where the request leaves them out. */
export function githubSettingsOf(raw: Record<string, unknown> | null): GithubSourceSettings | null {
  if (!raw) return null;
  return {
    installationId: Number(raw.installationId),
    repoId: Number(raw.repoId ?? 0),
    repoFullName: String(raw.repoFullName ?? ''),
    branch: String(raw.branch ?? ''),
    rootDir: typeof raw.rootDir === 'string' ? raw.rootDir : '',
    autoDeploy: raw.autoDeploy !== false,
    watchRootOnly: raw.watchRootOnly === true,
    accessLost: raw.accessLost === true,
    accessLostReason: typeof raw.accessLostReason === 'string' ? raw.accessLostReason : null,
  };
}
