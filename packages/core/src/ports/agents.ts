/**
 * What services need of the agents. packages/proto implements it over gRPC with mutual TLS, one
 * connection per server. Every failure to reach an agent (down, timed out, refused) is thrown as
 * AppError('node_unavailable'), which job processors treat as transient and retry.
 */
export interface AgentTarget {
  /** The node's name; null for an address that has not enrolled (readiness of configured addresses). */
  name: string | null;
  grpcAddress: string;
}

/**
 * Docker labels on every object the agent makes; reconciliation only ever removes objects carrying them, and only
 * those whose `slipway.platform` is the agent's own (a second platform on the same engine keeps its objects).
 */
export const LABELS = {
  platform: 'slipway.platform',
  workspace: 'slipway.workspace',
  app: 'slipway.app',
  deployment: 'slipway.deployment',
  database: 'slipway.database',
} as const;

export interface ContainerFilter {
  workspaceId?: string;
  appId?: string;
  deploymentId?: string;
  databaseId?: string;
}

export interface ManagedContainer {
  id: string;
  name: string;
  image: string;
  state: string;
  labels: Record<string, string>;
  createdAtMs: number;
  /**
   * An app container that died or stopped answering inside its settle window (decision 0038): why, as a sentence. The
   * route went back to `fallbackDeploymentId`'s container, kept warm behind it; the converge records the revert.
   */
  settleFailure?: string;
  fallbackDeploymentId?: string;
  /** Inside its settle window now: the agent judges it (a comparison neither starts nor recreates it meanwhile). */
  settling?: boolean;
}

export interface NoopResult {
  operationId: string;
  /** Epoch milliseconds (fractional) on the agent's clock. */
  startedAtMs: number;
  finishedAtMs: number;
  replayed: boolean;
}

/**
 * One event of a managed container: `die` (exited), `oom` (the OOM killer struck; a die follows), and with
 * `{ lifecycle: true }` also `destroy` (removed) and `start` ((re)started).
 */
export interface ContainerExitEvent {
  containerId: string;
  action: string;
  exitCode: number;
  labels: Record<string, string>;
  atMs: number;
  /**
   * `platform`: the agent itself caused it (its stop, restart, retire or removal, or one the control plane asked for);
   * `external`: it happened behind the platform's back (docker stop/kill/rm, an exit or crash, the OOM killer, the
   * engine's restart policy). Absent from agents older than issue 27: judge by the exit code then.
   */
  cause?: ContainerEventCause;
  /** On a die: the kernel's OOM killer ended the process. */
  oomKilled?: boolean;
  /** On a die: the signal a kill request sent just before (15 a stop, 9 a kill or rm -f); 0 the process exited on its own. */
  signal?: number;
  /**
   * The container is a release inside its settle window (decision 0038): the agent judges its death and the listing's
   * `settleFailure` carries the verdict, which the comparison turns into a revert.
   */
  settling?: boolean;
  /** What happened, as a sentence for a status ("The container was removed behind the platform's back (docker rm)"). */
  reason?: string;
}

export type ContainerEventCause = 'platform' | 'external';

/** What a container event stream carries beyond exits. */
export interface WatchContainerEventsOptions {
  /** Also `destroy` and `start` events (an agent older than issue 27 ignores it and sends exits only). */
  lifecycle?: boolean;
}

/**
 * Every managed container of a server and its state, as the agent saw them at `atMs`. The agent sends one when a
 * watch starts and whenever it has subscribed to the engine's events anew (after an engine restart): exits may
 * have been missed meanwhile, so the control plane compares its records with this.
 */
export interface ContainerSnapshot {
  containers: ManagedContainer[];
  atMs: number;
}

export interface AgentNodeInfo {
  name: string;
  version: string;
  cpuMillis: number;
  memoryMb: number;
  publicIpv4: string[];
  grpcAddress: string;
  /** The agent's data disk (absent from agents older than issue 21). */
  disk?: NodeDisk | null;
}

/** A server's data disk as its agent reports it with its health (MB). */
export interface NodeDisk {
  totalMb: number;
  freeMb: number;
  /** Free disk kept for running apps: below it, new builds, deployments and uploads are refused. */
  reserveMb: number;
  low: boolean;
  allocatedMb: number;
  folders: number;
}

/** An app's project folder on its server (MB). */
export interface FolderUsage {
  appId: string;
  limitMb: number;
  usedMb: number;
}

/** A route of the ingress: `host` → 127.0.0.1:`upstreamPort` on the app's server. */
export interface AppRoute {
  appId: string;
  host: string;
  upstreamPort: number;
}

/** An app of another server (issue 31): this server's ingress proxies its host to the owner's mesh listener over TLS. */
export interface RemoteRoute {
  appId: string;
  host: string;
  /** host:port of the owning server's mesh listener. */
  ownerAddress: string;
  /** The owning server's node name (its certificate's name derives from it). */
  ownerName: string;
}

export interface PrepareImageInput {
  operationId: string;
  workspaceId: string;
  appId: string;
  deploymentId: string;
  image: string;
  /** Rollbacks: the image must already be on the server (never pulled). */
  localOnly: boolean;
}

export interface RolloutInput {
  operationId: string;
  workspaceId: string;
  appId: string;
  deploymentId: string;
  imageRef: string;
  cpuMillis: number;
  memoryMb: number;
  /** 0 for workers. */
  port: number;
  env: Record<string, string>;
  healthPath: string;
  /** Empty: no route (workers, stopped apps). */
  routeHost: string;
  readyTimeoutMs: number;
  stopGraceMs: number;
  pruneImageRefs: string[];
  /** The project folder's size (MB): made at it, grown to it; never shrunk. Absent: the agent's default, 512. */
  diskMb?: number;
  /**
   * The route moves as soon as the new container answers, the previous one kept warm behind it until the settle window
   * has passed (decision 0038). Absent/false: the whole window first, then the route (an older control plane).
   */
  warmPrevious?: boolean;
  /** A rollback: no settle window when the image already passed one on this server. */
  maySkipSettle?: boolean;
}

export interface DeployResult {
  imageId: string;
  imageRef: string;
  containerId: string;
  hostPort: number;
  /** The settle window still running when the rollout answered (the previous container kept warm meanwhile); 0: none. */
  settleMs?: number;
}

export interface AppPowerInput {
  operationId: string;
  workspaceId: string;
  appId: string;
  action: 'start' | 'stop' | 'restart';
  containerId: string;
  route: AppRoute | null;
  stopGraceMs: number;
}

export interface RemoveWorkspaceInput {
  operationId: string;
  workspaceId: string;
  /** The workspace's apps, deleted ones included: images, routes and folders are found by app id. */
  appIds: string[];
}

/** A workspace network this platform made on a server. */
export interface WorkspaceNetworkInfo {
  id: string;
  name: string;
  workspaceId: string;
  subnets: string[];
}

export interface AgentGateway {
  /** grpc.health.v1 Check over mTLS; resolves only when the agent answers SERVING. */
  health(target: AgentTarget, timeoutMs?: number): Promise<void>;
  nodeInfo(target: AgentTarget): Promise<AgentNodeInfo>;
  noop(target: AgentTarget, input: { operationId: string; delayMs: number }): Promise<NoopResult>;
  listManagedContainers(target: AgentTarget, filter?: ContainerFilter): Promise<ManagedContainer[]>;
  removeManagedContainers(
    target: AgentTarget,
    input: { operationId: string; containerIds: string[] },
  ): Promise<{ removed: string[]; skipped: string[] }>;
  /** Container exits as the agent reports them, until `stop()` or the stream breaks (then `onEnd`). */
  watchContainerEvents(
    target: AgentTarget,
    onEvent: (e: ContainerExitEvent) => void,
    onEnd: (error: Error | null) => void,
    onSnapshot?: (s: ContainerSnapshot) => void,
    options?: WatchContainerEventsOptions,
  ): { stop(): void };
  /** The build phase of an image deployment; each log line goes to `onLine` as the agent reports it. */
  prepareImage(target: AgentTarget, input: PrepareImageInput, onLine: (line: string) => void): Promise<DeployResult>;
  /** The deploy phase; fails with `rollout_failed` (and the reason) when the new container never answers. */
  rolloutApp(target: AgentTarget, input: RolloutInput, onLine: (line: string) => void): Promise<DeployResult>;
  appPower(target: AgentTarget, input: AppPowerInput): Promise<void>;
  removeApp(target: AgentTarget, input: { operationId: string; workspaceId: string; appId: string }): Promise<{ containers: number; images: number }>;
  /** Makes the server's routes exactly `routes` (its own apps) and `remote` (every other server's, proxied to their owner). */
  syncRoutes(target: AgentTarget, routes: AppRoute[], remote?: RemoteRoute[]): Promise<{ added: number; removed: number }>;
  /** Everything a deleted workspace holds on the server (containers, images, routes, folders, networks); idempotent. */
  removeWorkspace(target: AgentTarget, input: RemoveWorkspaceInput): Promise<{ containers: number; images: number; networks: number }>;
  /** The workspace networks this platform made on the server. */
  listWorkspaceNetworks(target: AgentTarget): Promise<WorkspaceNetworkInfo[]>;
  /** The whole output of a managed container (or its last `tail` lines), stdout and stderr interleaved. */
  containerLogs(target: AgentTarget, input: { containerId: string; tail: number }): Promise<string>;
  /** Size and usage of apps' project folders; apps without a folder there are left out. */
  folderUsage(target: AgentTarget, appIds: string[]): Promise<FolderUsage[]>;
}
