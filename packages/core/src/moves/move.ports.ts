import type { AgentTarget } from '../ports/agents';
import type { MoveState, MoveStepRecord } from './move-state';

/** Who asked for a move: an operator (`workspaces move`) or a drain of the source server (`nodes drain`). */
export type MoveReason = 'operator' | 'drain';

export interface MoveRecord {
  id: string;
  workspaceId: string;
  workspaceSlug: string;
  fromNodeId: string;
  fromNode: string;
  toNodeId: string;
  toNode: string;
  state: MoveState;
  reason: MoveReason;
  steps: MoveStepRecord[];
  /** Why it failed or was cancelled, or what a succeeded move left behind; null otherwise. */
  error: string | null;
  attempts: number;
  cancelRequestedAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export type NewMove = Pick<MoveRecord, 'workspaceId' | 'workspaceSlug' | 'fromNodeId' | 'fromNode' | 'toNodeId' | 'toNode' | 'reason'>;

export interface MoveStore {
  create(input: NewMove, at: Date): Promise<MoveRecord>;
  get(moveId: string): Promise<MoveRecord | null>;
  /** Newest first. */
  list(filter: { limit: number; workspaceId?: string; unfinished?: boolean }): Promise<MoveRecord[]>;
  /** Conditional: moves the row from one of `from` to `to` with the patch; null when it was in none of them. */
  transition(
    moveId: string,
    from: readonly MoveState[],
    to: MoveState,
    patch?: { error?: string | null; startedAt?: Date; finishedAt?: Date; countAttempt?: boolean },
  ): Promise<MoveRecord | null>;
  appendStep(moveId: string, step: MoveStepRecord): Promise<void>;
  /** Marks an unfinished move as asked to stop; null when it is finished or missing. */
  requestCancel(moveId: string, at: Date): Promise<MoveRecord | null>;
  /** The oldest queued move of a drain from that server (the next one a drain runs). */
  nextOfDrain(fromNodeId: string): Promise<MoveRecord | null>;
}

/** A live app as a move carries it. */
export interface AppToMove {
  appId: string;
  /** The current deployment when in use (live or crashed); null: never deployed. */
  deploymentId: string | null;
  /** Every image tag its deployments still keep on the server (current and rollbacks). */
  imageRefs: string[];
  /** A deployment of it is queued, building or deploying. */
  busy: boolean;
}

/** What the switch records of an app: its current deployment's container on the target. */
export interface SwitchedApp {
  appId: string;
  deploymentId: string | null;
  containerId: string | null;
  hostPort: number | null;
}

/** What the switch records of a database: its server becomes the target, with the public port it has there. */
export interface SwitchedDatabase {
  databaseId: string;
  /** The public port on the target (the same as on the source when free there); null: public access off. */
  publicPort: number | null;
}

/** A live workspace as a move sees it. */
export interface MoveWorkspace {
  id: string;
  slug: string;
  nodeId: string | null;
  /** Live apps and databases it holds. */
  apps: number;
  databases: number;
  /** What its reservations add up to (placement's need for a drain). */
  reserved: { cpuMillis: number; memoryMb: number; diskMb: number };
}

export interface MoveWorkspaceStore {
  /** A live (not deleted) workspace by id or slug. */
  find(ref: string): Promise<MoveWorkspace | null>;
  /** The live workspaces placed on a server, oldest first. */
  onNode(nodeId: string): Promise<MoveWorkspace[]>;
  /** The live apps of the workspace as a move carries them: the current deployment, the images kept, whether one is being deployed. */
  appsToMove(workspaceId: string): Promise<AppToMove[]>;
  /**
   * One transaction: the workspace's server becomes `to`, and each app's current deployment records the container the
   * target runs (null: not running there), each listed database's server and public port, and the server of the
   * backups kept on `from`, only if the workspace is still live, on `from`, its live apps are exactly those listed with
   * those current deployments, none is being deployed, and its live databases are exactly those listed. false: it
   * changed meanwhile, nothing was written. Each app and database gets a `moved` event saying `event` (its owners see it).
   */
  switchServer(workspaceId: string, from: string, to: string, apps: SwitchedApp[], databases: SwitchedDatabase[], event: string): Promise<boolean>;
  /** The public ports the databases placed on a server hold (the rows' ports, unique per server). */
  publicPortsOn(nodeId: string): Promise<number[]>;
  /**
   * The databases (deleted ones too) whose backup files are on the server: each database's folder `backups/<id>/`
   * moves with the workspace and the switch records the target as the backups' server.
   */
  backupFoldersOn(workspaceId: string, nodeId: string): Promise<{ databaseId: string; backups: number }[]>;
  /** Every app id the workspace ever had (deleted ones too): what the source's cleanup looks for. */
  appIds(workspaceId: string): Promise<string[]>;
  /** The hostnames of the workspace's custom domains (any status): their certificates move with it. */
  domainHostnames(workspaceId: string): Promise<string[]>;
}

/**
 * Copies between two servers for a move (issue 32), through the control plane: the source's export stream is written
 * into the target's import stream as it arrives (agents never call each other). A copy cut halfway is not kept.
 */
export interface MovesGateway {
  /** The image tags (`docker save` → `docker load`); answers the bytes sent and the tags the target now holds. */
  copyImages(from: AgentTarget, to: AgentTarget, input: { operationId: string; workspaceId: string; imageRefs: string[] }): Promise<{ bytes: number; imageRefs: string[] }>;
  /** An app's project folder (a tar), unpacked over the target's folder (made at `diskMb` when missing). */
  copyFolder(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; appId: string; diskMb: number; seededImageRef: string },
  ): Promise<{ bytes: number }>;
  /**
   * A database's folder: `data` (the target's folder is replaced; only while its container is stopped on the source
   * unless `live`: a pre-copy while it runs; sent compressed) or `backups` (its backup files, added to the target's
   * folder). Answers the bytes sent and, for `data`, the bytes unpacked (about the folder's size). `signal`: the copy is
   * cut when it aborts (a move that failed meanwhile; the target keeps nothing of a copy cut halfway).
   */
  copyDatabaseFolder(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; databaseId: string; folder: 'data' | 'backups'; live?: boolean; signal?: AbortSignal },
  ): Promise<{ bytes: number; unpacked?: number }>;
  /** What a server holds of a database's data folder, as a block signature (`blockBytes` per block). */
  dataSignature(on: AgentTarget, input: { databaseId: string; blockBytes: number }): Promise<Uint8Array>;
  /**
   * The block delta between the target's data folder of a database (described by `signature`, the target's own) and
   * the source's, applied on the target: only what differs travels. Only while the source's container is stopped unless
   * `live` (a pass while it runs). Answers the delta's bytes as sent (compressed). `signal`: cut when it aborts.
   */
  copyDataDelta(
    from: AgentTarget,
    to: AgentTarget,
    input: { operationId: string; workspaceId: string; databaseId: string; signature: Uint8Array; live: boolean; signal?: AbortSignal },
  ): Promise<{ bytes: number }>;
  /** The backup folders of those databases on that server (a source cleaned, or a target a failed move is undone on). */
  removeBackupFolders(on: AgentTarget, databaseIds: string[]): Promise<{ removed: number }>;
}
