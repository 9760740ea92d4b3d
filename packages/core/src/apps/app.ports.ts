import type { CommitInfo } from '../github/github.ports';
// What the app and deployment services need of storage and of the jobs; packages/db implements the repositories.
import type { AppStatus, DeploymentStatus, StatusDetail } from '@slipway/contracts';
import type { OperationJobName } from '../jobs';
import type { NodeRecord } from '../nodes/node.ports';

export type { AppStatus, DeploymentStatus, StatusDetail };

export type AppKind = 'web' | 'worker';
export type AppSource = 'image' | 'github' | 'upload';
export type DeploymentSource = AppSource | 'rollback';

export interface AppRecord {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
  kind: AppKind;
  source: AppSource;
  image: string | null;
  port: number | null;
  healthPath: string | null;
  /** Build settings of apps built by Slipway (upload, github); null: detected. */
  buildCommand: string | null;
  startCommand: string | null;
  rootDirectory: string | null;
  cpuMillis: number;
  memoryMb: number;
  /** Size of the project folder (MB). */
  diskMb: number;
  subdomain: string | null;
  /** What the app's files took in its folder as the metrics pipeline last carried it, and that sample's minute. */
  folderUsedMb: number | null;
  folderMeasuredAt: Date | null;
  github: Record<string, unknown> | null;
  status: AppStatus;
  desiredState: 'running' | 'stopped';
  /** Bumped in the transaction that records every intent: the intent accepted last wins. */
  generation: number;
  statusDetail: StatusDetail;
  currentDeploymentId: string | null;
  runningSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeploymentRecord {
  id: string;
  workspaceId: string;
  appId: string;
  number: number;
  status: DeploymentStatus;
  source: DeploymentSource;
  image: string | null;
  imageId: string | null;
  /** The tag the agent gave the image on the server (the agent owns the naming; it is stored, never computed). */
  imageRef: string | null;
  commitSha: string | null;
  /** GitHub deployments: the commit built (sha, message, author, branch, url); null (or absent) for other sources. */
  commit?: CommitInfo | null;
  rollbackOfId: string | null;
  failureReason: string | null;
  imageAvailable: boolean;
  containerId: string | null;
  hostPort: number | null;
  cpuMillis: number;
  memoryMb: number;
  port: number | null;
  triggeredBy: { id: string; name: string } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface AppWithDeployment extends AppRecord {
  currentDeployment: DeploymentRecord | null;
}

/** What creating an app writes: the record's own fields, before any status or deployment. */
export type NewApp = Pick<
  AppRecord,
  | 'id' | 'workspaceId' | 'name' | 'slug' | 'kind' | 'source' | 'image' | 'port' | 'healthPath' | 'cpuMillis' | 'memoryMb' | 'diskMb' | 'subdomain' | 'github'
  | 'buildCommand' | 'startCommand' | 'rootDirectory'
>;

/** What PATCH may change of an app's row. */
export type AppChanges = Partial<
  Pick<AppRecord, 'name' | 'slug' | 'image' | 'port' | 'cpuMillis' | 'memoryMb' | 'diskMb' | 'subdomain' | 'buildCommand' | 'startCommand' | 'rootDirectory' | 'github'>
>;

/** The workspace and the app: every request-side method is scoped by both. */
export interface AppScope {
  workspaceId: string;
  appId: string;
}
export interface DeploymentScope extends AppScope {
  deploymentId: string;
}

/** Request side: every method takes the workspace (a row of another workspace is never found, never changed). */
export interface AppRepository {
  /** The app (not deleted) with its current deployment; null when it is not in this workspace. */
  findApp(scope: AppScope): Promise<AppWithDeployment | null>;
  /** Apps (not deleted), oldest first. */
  listApps(scope: { workspaceId: string }): Promise<AppWithDeployment[]>;
  /**
   * 'name_taken' when the slug is taken in the workspace; 'subdomain_taken' when the subdomain is taken (platform-wide,
   * by any workspace's app: the database's unique index decides).
   */
  createApp(app: NewApp): Promise<AppWithDeployment | 'name_taken' | 'subdomain_taken'>;
  updateApp(scope: AppScope, changes: AppChanges): Promise<AppWithDeployment | 'name_taken' | 'subdomain_taken' | null>;
  /** Sets deletedAt and frees the slug and subdomain; null when already deleted or missing. */
  markDeleted(scope: AppScope, now: Date): Promise<AppRecord | null>;
  /** Status (and optionally desired state, detail, runningSince) of an app, unconditionally. */
  setState(scope: AppScope, state: AppStateChange): Promise<void>;
  /**
   * Records an intent (start, stop, restart) in one transaction: the generation bumped, the desired state set and,
   * when given, the Operation row of its job, whose payload gets the new generation. null when the app is not in this
   * workspace (or deleted). `app` is the app as this intent left it (a later intent may have changed it since).
   */
  recordIntent(scope: AppScope, intent: AppIntent): Promise<{ app: AppWithDeployment; operationId: string | null } | null>;
  /** The node the workspace is placed on; null when it has none. */
  /** The workspace's server, with its data disk as last reported (null before the first report). */
  nodeOf(scope: { workspaceId: string }): Promise<{ id: string; name: string; grpcAddress: string; disk: NodeRecord['disk'] } | null>;
}

export interface AppIntent {
  desiredState: 'running' | 'stopped';
  operation?: { kind: OperationJobName; nodeId: string | null; payload: Record<string, unknown> };
}

export type AppStateChange = { status?: AppStatus; desiredState?: 'running' | 'stopped'; statusDetail?: StatusDetail; runningSince?: Date | null };

/**
 * Job side, keyed by row id: the jobs already hold the row (a deployment's app, an operation's payload, a container's
 * labels). Only the worker composes it; the API never gets one.
 */
export interface AppJobStore {
  /** An app by id only, deleted or not. */
  getById(appId: string): Promise<(AppWithDeployment & { deletedAt: Date | null }) | null>;
  /** Apps (not deleted) of the workspaces placed on a node, with their current deployment (routes, exits). */
  listOnNode(nodeId: string): Promise<AppWithDeployment[]>;
  /** The node the workspace is placed on; null when it has none. */
  nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string } | null>;
  setState(appId: string, state: AppStateChange): Promise<void>;
  /**
   * A state change only while the app still has this current deployment and desired state (a conditional update):
   * an exit seen just before a deployment went live must not mark the new one crashed. false when it did not match.
   */
  setStateIf(appId: string, expected: { currentDeploymentId: string; desiredState: 'running' | 'stopped' }, state: AppStateChange): Promise<boolean>;
}

export interface EnvRecord {
  key: string;
  /** Plain value, or the sealed value for secrets. */
  value: string;
  secret: boolean;
  updatedAt: Date;
}

export interface EnvRepository {
  list(scope: AppScope): Promise<EnvRecord[]>;
  /** Replaces the whole set in one transaction; rows whose value and secrecy are unchanged keep their updatedAt. */
  replace(scope: AppScope, variables: { key: string; value: string; secret: boolean }[], now: Date): Promise<EnvRecord[]>;
}

export interface NewDeployment {
  /** Given when the id had to be known first (an upload is stored on the server under it); generated otherwise. */
  id?: string;
  workspaceId: string;
  appId: string;
  source: DeploymentSource;
  image: string | null;
  imageId: string | null;
  commitSha: string | null;
  /** GitHub deployments: what the commit is (filled when it was resolved, at creation). */
  commit?: CommitInfo | null;
  rollbackOfId: string | null;
  cpuMillis: number;
  memoryMb: number;
  port: number | null;
  triggeredBy: { id: string; name: string } | null;
}

export interface LogLineRecord {
  seq: number;
  phase: 'build' | 'deploy';
  text: string;
  at: Date;
}

/** Request side: every method takes the workspace and the app. */
export interface DeploymentRepository {
  /** Numbers it (per app) and inserts it queued, in one transaction. */
  create(input: NewDeployment): Promise<DeploymentRecord>;
  find(scope: DeploymentScope): Promise<DeploymentRecord | null>;
  /** Newest first; `beforeNumber` for the next page. */
  list(scope: AppScope, page: { beforeNumber?: number; limit: number }): Promise<DeploymentRecord[]>;
  /** Conditional update (a cancel): only while the status is one of `from`; null when the race was lost. */
  move(scope: DeploymentScope, from: readonly DeploymentStatus[], to: DeploymentStatus, changes?: DeploymentChanges): Promise<DeploymentRecord | null>;
  readLogs(scope: DeploymentScope, after: number, limit: number): Promise<LogLineRecord[]>;
  /** Deployments of the app that have an image on the server, newest first. */
  withImages(scope: AppScope): Promise<DeploymentRecord[]>;
}

export type DeploymentChanges = Partial<Pick<DeploymentRecord, 'imageId' | 'imageRef' | 'failureReason' | 'containerId' | 'hostPort' | 'startedAt' | 'finishedAt' | 'cpuMillis' | 'memoryMb'>>;

/** Job side, keyed by the deployment id the job carries: only the worker composes it. */
export interface DeploymentJobStore {
  get(deploymentId: string): Promise<DeploymentRecord | null>;
  /** Conditional update: only while the status is one of `from`; null when the race was lost. */
  move(deploymentId: string, from: readonly DeploymentStatus[], to: DeploymentStatus, changes?: DeploymentChanges): Promise<DeploymentRecord | null>;
  /**
   * In one transaction: deploying → live (conditional), the app's other live deployments → superseded, the app's
   * current deployment, status running and runningSince set. null when the deployment was not deploying.
   */
  goLive(deploymentId: string, changes: { containerId: string; hostPort: number | null; imageId: string; imageRef: string }, now: Date): Promise<DeploymentRecord | null>;
  /**
   * A release that failed inside its settle window gives the app back to the one kept warm behind it (decision 0038),
   * in one transaction and only while `fromId` is still the app's current deployment and `toId` superseded:
   * `fromId` → crashed with `reason`, `toId` → live, the app's current deployment `toId`, status running since
   * `runningSince`. False when any condition no longer held (nothing written).
   */
  revert(appId: string, fromId: string, toId: string, reason: string, runningSince: Date): Promise<boolean>;
  /** The highest seq written for the deployment (0 when none), and the bytes of text its lines hold. */
  logState(deploymentId: string): Promise<{ lastSeq: number; bytes: number }>;
  appendLogs(deploymentId: string, lines: LogLineRecord[]): Promise<void>;
  /** Deployments of the app that have an image on the server, newest first. */
  withImages(appId: string): Promise<DeploymentRecord[]>;
  markImagesGone(deploymentIds: string[]): Promise<void>;
  /** The apps among `appIds` with a deployment queued, building or deploying. */
  appsWithDeploymentsInFlight(appIds: string[]): Promise<Set<string>>;
}

export type PowerAction = 'start' | 'stop' | 'restart';
/** The payload of an `app.power` Operation row (the job carries the row's id only). */
export interface AppPowerRequest {
  workspaceId: string;
  appId: string;
  action: PowerAction;
  /** The app's generation this intent made (rows recorded before generations existed have none). */
  generation?: number;
}
/** The payload of an `app.teardown` Operation row. */
export interface AppTeardownRequest {
  workspaceId: string;
  appId: string;
}
