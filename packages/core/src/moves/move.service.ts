import { AppError } from '../errors';
import { WORKSPACE_MOVE_JOB } from '../jobs';
import type { NodeRecord, NodeRepository } from '../nodes/node.ports';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { NodeCapacity } from '../ports/repositories';
import { placeWorkspace } from '../workspaces/placement';
import { noServerSentence } from '../workspaces/workspace.service';
import type { MoveRecord, MoveStore, MoveWorkspace, MoveWorkspaceStore } from './move.ports';

export interface DrainPlan {
  node: string;
  /** Moves queued, in the order they run (one at a time). */
  moves: MoveRecord[];
  /** Workspaces no server can take now, each with the sentence why. */
  unplaced: { workspace: string; reason: string }[];
}

/**
 * Asking for moves (issue 32): `workspaces move`, `moves cancel`, `nodes drain`. A move is a row (`moves`) and a
 * `workspace.move` job whose id is the row's; the job's runner (MoveRunner) does the work under the workspace's
 * lock. The last intent wins: a new move of a workspace cancels its queued moves and asks its running one to stop.
 */
export class MoveService {
  constructor(
    private readonly deps: {
      moves: MoveStore;
      workspaces: MoveWorkspaceStore;
      nodes: NodeRepository;
      jobs: JobQueue;
      clock: Clock;
    },
  ) {}

  /** Queues the move of one workspace (by id or slug) to the server of that name. */
  async request(workspaceRef: string, toNodeName: string): Promise<MoveRecord> {
    const workspace = await this.deps.workspaces.find(workspaceRef);
    if (!workspace) throw new AppError('not_found', `No live workspace has the id or slug "${workspaceRef}"`);
    const nodes = await this.deps.nodes.list();
    const to = nodes.find((n) => n.name === toNodeName);
    if (!to) throw new AppError('not_found', `No server is enrolled as "${toNodeName}"`);
    const from = nodes.find((n) => n.id === workspace.nodeId);
    if (!from) throw new AppError('invalid_state', `The workspace ${workspace.slug} is not placed on any server; there is nothing to move`);
    refuseTarget(to, from);
    const [move] = await this.queue([{ workspace, from, to }], 'operator');
    return move!;
  }

  /** Asks a move to stop: a queued one is cancelled at once, a running one before its next step (until its switch). */
  async cancel(moveId: string): Promise<MoveRecord> {
    const now = this.deps.clock();
    const queued = await this.deps.moves.transition(moveId, ['queued'], 'cancelled', { error: 'Cancelled before it started', finishedAt: now });
    if (queued) return queued;
    const asked = await this.deps.moves.requestCancel(moveId, now);
    if (asked) return asked;
    const row = await this.deps.moves.get(moveId);
    if (!row) throw new AppError('not_found', `No move has the id ${moveId}`);
    throw new AppError('invalid_state', `The move ${moveId} has already ${row.state === 'succeeded' ? 'succeeded' : `ended (${row.state})`}; there is nothing to cancel`);
  }

  list(filter: { limit: number; workspaceId?: string; unfinished?: boolean }): Promise<MoveRecord[]> {
    return this.deps.moves.list(filter);
  }

  async get(moveId: string): Promise<MoveRecord> {
    const row = await this.deps.moves.get(moveId);
    if (!row) throw new AppError('not_found', `No move has the id ${moveId}`);
    return row;
  }

  /**
   * Drains a server: cordons it (so nothing new lands there), then queues a move of every live workspace on it to the
   * server placement picks (as for a new workspace, the workspace's reservations as the need, each earlier move of
   * the drain counted on its target). Only the first move's job is queued: each move queues the next one of the
   * drain when it ends, so they run one at a time.
   */
  async drain(nodeName: string): Promise<DrainPlan> {
    const nodes = await this.deps.nodes.listWithUsage();
    const source = nodes.find((n) => n.name === nodeName);
    if (!source) throw new AppError('not_found', `No server is enrolled as "${nodeName}"`);
    if (!source.cordonedAt) await this.deps.nodes.setCordoned(source.name, this.deps.clock());
    const capacity: NodeCapacity[] = nodes
      .filter((n) => n.id !== source.id && n.status === 'online' && n.unreachableSince === null)
      .map((n) => ({
        id: n.id,
        name: n.name,
        cpuMillis: n.cpuMillis,
        memoryMb: n.memoryMb,
        reservedCpuMillis: n.reservedCpuMillis,
        reservedMemoryMb: n.reservedMemoryMb,
        cordoned: n.cordonedAt !== null,
        disk: n.disk,
      }));
    const planned: { workspace: MoveWorkspace; from: NodeRecord; to: NodeRecord }[] = [];
    const unplaced: DrainPlan['unplaced'] = [];
    const unfinished = new Set((await this.deps.moves.list({ limit: 10_000, unfinished: true })).filter((m) => m.fromNodeId === source.id).map((m) => m.workspaceId));
    for (const workspace of await this.deps.workspaces.onNode(source.id)) {
      // A workspace already being moved off this server keeps its move (draining twice queues nothing twice).
      if (unfinished.has(workspace.id)) continue;
      const placed = placeWorkspace(capacity, workspace.reserved);
      if (placed.node === null) {
        unplaced.push({
          workspace: workspace.slug,
          reason:
            placed.reason === 'no_server'
              ? noServerSentence(placed.cordoned)
              : `No other server has room: it needs ${placed.requested} ${placed.resource === 'cpu' ? 'millicores of vCPU' : `MB of ${placed.resource}`} and the roomiest has ${placed.available} ${placed.resource === 'cpu' ? 'millicores' : 'MB'} free`,
        });
        continue;
      }
      const target = placed.node;
      target.reservedCpuMillis += workspace.reserved.cpuMillis;
      target.reservedMemoryMb += workspace.reserved.memoryMb;
      planned.push({ workspace, from: source, to: nodes.find((n) => n.id === target.id)! });
    }
    const moves = await this.queue(planned, 'drain');
    return { node: source.name, moves, unplaced };
  }

  /** Records the moves (the last intent wins over earlier unfinished ones) and queues the first one's job (a drain) or each one's (an operator's). */
  private async queue(items: { workspace: MoveWorkspace; from: NodeRecord; to: NodeRecord }[], reason: 'operator' | 'drain'): Promise<MoveRecord[]> {
    const made: MoveRecord[] = [];
    for (const { workspace, from, to } of items) {
      const now = this.deps.clock();
      for (const earlier of await this.deps.moves.list({ limit: 100, workspaceId: workspace.id, unfinished: true })) {
        const why = `Replaced by a newer move to ${to.name}`;
        if (!(await this.deps.moves.transition(earlier.id, ['queued'], 'cancelled', { error: why, finishedAt: now }))) await this.deps.moves.requestCancel(earlier.id, now);
      }
      made.push(
        await this.deps.moves.create(
          { workspaceId: workspace.id, workspaceSlug: workspace.slug, fromNodeId: from.id, fromNode: from.name, toNodeId: to.id, toNode: to.name, reason },
          now,
        ),
      );
    }
    const first = reason === 'drain' ? made.slice(0, 1) : made;
    for (const move of first) await this.deps.jobs.enqueue(WORKSPACE_MOVE_JOB, { moveId: move.id }, { jobId: move.id });
    return made;
  }
}

/** Why a server cannot take a moved workspace now; nothing when it can. */
export function targetRefusal(to: Pick<NodeRecord, 'name' | 'id' | 'status' | 'cordonedAt' | 'unreachableSince'>, from: Pick<NodeRecord, 'id' | 'name'>): string | null {
  if (to.id === from.id) return `The workspace is already on ${to.name}`;
  if (to.cordonedAt) return `${to.name} is cordoned: it takes no workspace (uncordon it first)`;
  if (to.status !== 'online') return `${to.name} is offline`;
  if (to.unreachableSince) return `${to.name} has not answered its health checks since ${to.unreachableSince.toISOString()}`;
  return null;
}

function refuseTarget(to: NodeRecord, from: NodeRecord): void {
  const why = targetRefusal(to, from);
  if (why) throw new AppError('invalid_state', why);
}
