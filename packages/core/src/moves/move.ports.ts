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
  /**
   * Conditional, in one statement: the workspace's server becomes `to` only if it is still live and on `from` (and,
   * with `onlyEmpty`, holds no live app or database). false: it changed meanwhile, nothing was written.
   */
  switchServer(workspaceId: string, from: string, to: string, options: { onlyEmpty: boolean }): Promise<boolean>;
  /** Every app id the workspace ever had (deleted ones too): what the source's cleanup looks for. */
  appIds(workspaceId: string): Promise<string[]>;
}
