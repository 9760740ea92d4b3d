import { AppError } from '../errors';
import { WORKSPACE_MOVE_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { NodeRecord, NodeRepository } from '../nodes/node.ports';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { AgentGateway } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import { isMoveFinished, moveSourcesOf, runMoveSteps, type MoveStep } from './move-state';
import type { MoveRecord, MoveStore, MoveWorkspaceStore } from './move.ports';
import { targetRefusal } from './move.service';

/** How long the target's health check may take before the move gives up on it. */
const TARGET_HEALTH_TIMEOUT_MS = 5_000;

/**
 * The work of the `workspace.move` job (issue 32): one move, under the workspace's lock, step by step, each step's
 * outcome recorded on the move's row. What moves today is a workspace without apps or databases (its record, its
 * placement and what the source server holds of it); a workspace with apps or databases is refused at the check
 * step with a sentence saying so, and stays where it is. The steps for apps, project folders and databases slot in
 * between `check` and `switch` (docs/decisions/0037-drain-and-moves.md).
 */
export class MoveRunner {
  constructor(
    private readonly deps: {
      moves: MoveStore;
      workspaces: MoveWorkspaceStore;
      nodes: NodeRepository;
      agents: Pick<AgentGateway, 'health' | 'removeWorkspace'>;
      locks: ResourceLocks;
      jobs: JobQueue;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /**
   * One try of the move's job. A move already finished answers its row (a job delivered again does nothing). Waiting
   * for the workspace's lock can fail transiently (another move or job holds it too long): the error is thrown and the
   * queue tries again, the row still queued. Every failure after the claim ends the row with the reason instead.
   */
  async run(moveId: string): Promise<MoveRecord> {
    const first = await this.deps.moves.get(moveId);
    if (!first) throw new AppError('not_found', `No move has the id ${moveId}`);
    if (isMoveFinished(first.state)) return first;
    return this.deps.locks.hold('workspace', first.workspaceId, async () => {
      const claimed = await this.deps.moves.transition(moveId, moveSourcesOf('running').filter((s) => s !== 'running' || first.state === 'running'), 'running', {
        startedAt: this.deps.clock(),
        countAttempt: true,
      });
      if (!claimed) return (await this.deps.moves.get(moveId))!;
      const ended = await this.work(claimed);
      if (ended.reason === 'drain') await this.queueNextOfDrain(ended.fromNodeId);
      return ended;
    });
  }

  private async work(move: MoveRecord): Promise<MoveRecord> {
    const log = this.deps.logger.child({ moveId: move.id, workspace: move.workspaceSlug, from: move.fromNode, to: move.toNode });
    let outcome;
    try {
      outcome = await runMoveSteps(this.steps(move), {
        record: (step) => this.deps.moves.appendStep(move.id, step),
        cancelled: async () => (await this.deps.moves.get(move.id))?.cancelRequestedAt != null,
        now: this.deps.clock,
      });
    } catch (e) {
      // Recording itself failed (PostgreSQL away): the row ends failed if it can be written at all.
      outcome = { state: 'failed' as const, error: `The move could not record its steps: ${(e as Error).message}` };
    }
    const finishedAt = this.deps.clock();
    const error = outcome.state === 'succeeded' ? (outcome.leftovers.length ? `Moved; left behind: ${outcome.leftovers.join('; ')}` : null) : outcome.error;
    const ended = await this.deps.moves.transition(move.id, ['running'], outcome.state, { error, finishedAt });
    if (outcome.state === 'succeeded') log.info({ leftovers: outcome.leftovers }, 'workspace moved');
    else log.warn({ state: outcome.state, err: error }, 'workspace not moved');
    return ended ?? (await this.deps.moves.get(move.id))!;
  }

  /** The steps of one move: check, switch (the commit), clean the source. */
  private steps(move: MoveRecord): MoveStep[] {
    const { workspaces, nodes, agents } = this.deps;
    let source: NodeRecord | null = null;
    let alreadySwitched = false;
    return [
      {
        name: 'check',
        run: async () => {
          const ws = await workspaces.find(move.workspaceId);
          if (!ws) throw new Error(`The workspace ${move.workspaceSlug} was deleted`);
          // An earlier try of this move (its worker died) may have switched it already: only the cleanup is left.
          alreadySwitched = ws.nodeId === move.toNodeId && move.steps.some((s) => s.step === 'switch' && s.outcome === 'done');
          source = await nodes.get(move.fromNodeId);
          if (alreadySwitched) return { sentence: `Already on ${move.toNode} (switched by an earlier try of this move)`, skipped: true };
          if (ws.nodeId !== move.fromNodeId) throw new Error(`The workspace is no longer on ${move.fromNode}`);
          const target = await nodes.get(move.toNodeId);
          if (!target) throw new Error(`The server ${move.toNode} is no longer enrolled`);
          const refused = targetRefusal(target, { id: move.fromNodeId, name: move.fromNode });
          if (refused) throw new Error(refused);
          try {
            await agents.health({ name: target.name, grpcAddress: target.grpcAddress }, TARGET_HEALTH_TIMEOUT_MS);
          } catch (e) {
            throw new Error(`${target.name} did not answer its health check (${(e as Error).message})`, { cause: e });
          }
          if (ws.apps > 0 || ws.databases > 0) {
            throw new Error(
              `The workspace holds ${plural(ws.apps, 'app')} and ${plural(ws.databases, 'database')}; moving apps and databases between servers is ` +
                'not built yet (issue 32): today only a workspace without apps or databases moves',
            );
          }
          return { sentence: `${target.name} answers and can take the workspace (no apps, no databases to carry)` };
        },
      },
      {
        name: 'switch',
        commit: true,
        run: async () => {
          if (alreadySwitched) return { sentence: `Already on ${move.toNode}`, skipped: true };
          const switched = await workspaces.switchServer(move.workspaceId, move.fromNodeId, move.toNodeId, { onlyEmpty: true });
          if (!switched) throw new Error('The workspace changed while it was being moved (an app or database was added, or it was deleted or moved); nothing was switched');
          return { sentence: `The workspace is on ${move.toNode} now` };
        },
        undo: async () => {
          await workspaces.switchServer(move.workspaceId, move.toNodeId, move.fromNodeId, { onlyEmpty: false });
          return `Back on ${move.fromNode}`;
        },
      },
      {
        name: 'clean-source',
        run: async () => {
          if (!source) return { sentence: `${move.fromNode} is no longer enrolled: nothing to clean there`, skipped: true };
          const removed = await agents.removeWorkspace(
            { name: source.name, grpcAddress: source.grpcAddress },
            { operationId: `move-${move.id}-source`, workspaceId: move.workspaceId, appIds: await workspaces.appIds(move.workspaceId) },
          );
          return { sentence: `Removed from ${source.name}: ${plural(removed.containers, 'container')}, ${plural(removed.images, 'image')}, ${plural(removed.networks, 'network')}` };
        },
      },
    ];
  }

  /** A drain runs its moves one at a time: the next queued one of the same source, once this one ended. */
  private async queueNextOfDrain(fromNodeId: string): Promise<void> {
    const next = await this.deps.moves.nextOfDrain(fromNodeId);
    if (next) await this.deps.jobs.enqueue(WORKSPACE_MOVE_JOB, { moveId: next.id }, { jobId: next.id });
  }

  /** The worker's last word on a move whose job failed for good: the row fails with the reason, unless it ended. */
  async failedForGood(moveId: string, reason: string): Promise<void> {
    const row = await this.deps.moves.transition(moveId, moveSourcesOf('failed'), 'failed', { error: reason, finishedAt: this.deps.clock() });
    if (row?.reason === 'drain') await this.queueNextOfDrain(row.fromNodeId);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
