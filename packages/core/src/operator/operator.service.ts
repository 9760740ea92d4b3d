import { AppError } from '../errors';
import type { NodeUsageNow } from '../metrics/metrics.ports';
import type { MoveStepRecord } from '../moves/move-state';
import type { MoveRecord } from '../moves/move.ports';
import type { DrainPlan, MoveService } from '../moves/move.service';
import type { NodeRepository, NodeWithUsage } from '../nodes/node.ports';
import { nodeView, type NodeView } from '../nodes/node.service';
import type { Clock } from '../ports/clock';

// What operators see of servers and moves (issue 32), the one shape `slipway-admin … --json` prints and the operator
// API (apps/api, on a Unix socket) answers: both call OperatorService, so the two never drift apart.

/** A server's measured use (metrics.collect, every minute) as the agent last reported it; null: never measured. */
export interface NodeUsedView {
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
  free: { cpuMillis: number; memoryMb: number; diskMb: number };
  total: { cpuMillis: number; memoryMb: number; diskMb: number };
  containers: number;
  at: Date;
}

export type OperatorNodeView = NodeView & { used: NodeUsedView | null };

export interface MoveView {
  id: string;
  workspace: string;
  workspaceId: string;
  from: string;
  to: string;
  state: MoveRecord['state'];
  reason: MoveRecord['reason'];
  error: string | null;
  cancelRequested: boolean;
  attempts: number;
  steps: MoveStepRecord[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface CordonView {
  name: string;
  cordoned: boolean;
  cordonedAt: Date | null;
}

export interface DrainView {
  node: string;
  cordoned: true;
  /** The moves queued, in the order they run (one at a time). */
  moves: MoveView[];
  /** Workspaces no server can take now, each with the sentence why. */
  unplaced: DrainPlan['unplaced'];
}

export type MeasuredNodeUsage = NodeUsageNow & { at: Date };

/** A server with what placement counts (nodeView) and what it measured (issue 15): used and free of the whole server. */
export function operatorNodeView(n: NodeWithUsage, u: MeasuredNodeUsage | undefined): OperatorNodeView {
  const used = u
    ? {
        cpuMillis: u.cpuUsedMillis,
        memoryMb: u.memoryUsedMb,
        diskMb: Math.max(0, u.diskTotalMb - u.diskFreeMb),
        free: { cpuMillis: Math.max(0, u.cpuTotalMillis - u.cpuUsedMillis), memoryMb: Math.max(0, u.memoryTotalMb - u.memoryUsedMb), diskMb: u.diskFreeMb },
        total: { cpuMillis: u.cpuTotalMillis, memoryMb: u.memoryTotalMb, diskMb: u.diskTotalMb },
        containers: u.containers,
        at: u.at,
      }
    : null;
  return { ...nodeView(n), used };
}

export function moveView(m: MoveRecord): MoveView {
  return {
    id: m.id,
    workspace: m.workspaceSlug,
    workspaceId: m.workspaceId,
    from: m.fromNode,
    to: m.toNode,
    state: m.state,
    reason: m.reason,
    error: m.error,
    cancelRequested: m.cancelRequestedAt !== null,
    attempts: m.attempts,
    steps: m.steps,
    createdAt: m.createdAt.toISOString(),
    startedAt: m.startedAt?.toISOString() ?? null,
    finishedAt: m.finishedAt?.toISOString() ?? null,
  };
}

export function drainView(plan: DrainPlan): DrainView {
  return { node: plan.node, cordoned: true, moves: plan.moves.map(moveView), unplaced: plan.unplaced };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The largest page of moves an operator reads at once. */
export const MOVES_LIMIT_MAX = 10_000;

/**
 * The operator's actions on servers and moves, answered as views. Refusals are AppErrors: `not_found` (no such
 * server, workspace or move), `invalid_state` (not possible now: already there, cordoned, already ended) and
 * `validation_failed` (a filter that cannot name anything); the CLI maps them to exit codes 3, 4, 2 and the operator
 * API to 404, 409, 400.
 */
export class OperatorService {
  constructor(
    private readonly deps: {
      nodes: NodeRepository;
      /** The servers' last measured use, by node id (nodeUsages of @slipway/db). */
      usages: () => Promise<Map<string, MeasuredNodeUsage>>;
      moves: MoveService;
      clock: Clock;
    },
  ) {}

  async nodes(): Promise<OperatorNodeView[]> {
    const usage = await this.deps.usages();
    return (await this.deps.nodes.listWithUsage()).map((n) => operatorNodeView(n, usage.get(n.id)));
  }

  /** Cordons (true) or uncordons (false) a server: placement skips a cordoned one; what runs there runs on. */
  async cordon(name: string, cordoned: boolean): Promise<CordonView> {
    const node = await this.deps.nodes.setCordoned(name, cordoned ? this.deps.clock() : null);
    if (!node) throw new AppError('not_found', `No server is enrolled as "${name}"`);
    return { name: node.name, cordoned: node.cordonedAt !== null, cordonedAt: node.cordonedAt };
  }

  async drain(name: string): Promise<DrainView> {
    return drainView(await this.deps.moves.drain(name));
  }

  async move(workspaceRef: string, toNode: string): Promise<MoveView> {
    return moveView(await this.deps.moves.request(workspaceRef, toNode));
  }

  async moves(filter: { limit: number; workspaceId?: string }): Promise<MoveView[]> {
    if (!Number.isInteger(filter.limit) || filter.limit < 1 || filter.limit > MOVES_LIMIT_MAX) {
      throw new AppError('validation_failed', `The limit must be a whole number from 1 to ${MOVES_LIMIT_MAX}`);
    }
    if (filter.workspaceId !== undefined && !UUID.test(filter.workspaceId)) {
      throw new AppError('validation_failed', `The workspace filter must be a workspace's id (a UUID), not "${filter.workspaceId}"`);
    }
    return (await this.deps.moves.list(filter)).map(moveView);
  }

  async get(moveId: string): Promise<MoveView> {
    if (!UUID.test(moveId)) throw new AppError('not_found', `No move has the id ${moveId}`);
    return moveView(await this.deps.moves.get(moveId));
  }

  async cancel(moveId: string): Promise<MoveView> {
    if (!UUID.test(moveId)) throw new AppError('not_found', `No move has the id ${moveId}`);
    return moveView(await this.deps.moves.cancel(moveId));
  }
}
