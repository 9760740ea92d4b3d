import { stateTable } from '../state-table';

// Issue 32: a move of a workspace from one server to another, as a state machine with a record of its steps.

export const MOVE_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type MoveState = (typeof MOVE_STATES)[number];

/** The states a move ends in: no step runs after them. */
export const FINISHED_MOVE_STATES = ['succeeded', 'failed', 'cancelled'] as const satisfies readonly MoveState[];
export const isMoveFinished = (s: MoveState): boolean => (FINISHED_MOVE_STATES as readonly MoveState[]).includes(s);

/**
 * Which state may follow which: queued → running (a worker took it) or cancelled (before it started); running →
 * succeeded, failed, cancelled, or running again (the job was delivered again after its worker died).
 */
const MOVE_TRANSITIONS: Record<MoveState, readonly MoveState[]> = {
  queued: ['running', 'cancelled', 'failed'],
  running: ['running', 'succeeded', 'failed', 'cancelled'],
  succeeded: [],
  failed: [],
  cancelled: [],
};
/** Whether `to` may follow `from`, and the states a move may be in for `to` to follow (the conditional update's `where`). */
export const { canMove: canMoveMove, sourcesOf: moveSourcesOf } = stateTable(MOVE_TRANSITIONS);

/** done: the step did its work; failed: it could not (the sentence says why); undone: a done step reversed after a
 * later failure or a cancel; skipped: not needed (already done by an earlier try, or nothing to do). */
export type MoveStepOutcome = 'done' | 'failed' | 'undone' | 'skipped';

/** One line of a move's record. */
export interface MoveStepRecord {
  step: string;
  outcome: MoveStepOutcome;
  /** What happened, as a sentence an operator can act on. */
  sentence: string;
  at: string;
}

/** What a step's work answers: its sentence, or that it was not needed. */
export type StepResult = { sentence: string; skipped?: boolean };

/**
 * One step of a move. `run` does it and says what it did; `undo` reverses it when a later step fails or the move is
 * cancelled before the commit. A `commit` step is the point after which the move is the truth (the workspace's
 * server is the target): later steps are cleanup, a failure there is recorded but undoes nothing, and a cancel asked
 * after it no longer applies.
 */
export interface MoveStep {
  name: string;
  run(): Promise<StepResult>;
  undo?(): Promise<string>;
  commit?: boolean;
  /**
   * Work of this step started ahead of its turn, beside the steps before it (a database's pre-copy while the images
   * copy and the apps start): `begin` is called just before the step named `from` runs (after its cancel check), and
   * `run` joins what it started. Once begun, the step's undo is due on a failure or a cancel before the commit even if
   * its `run` never came; what it still does is told to stop (`signal`) and waited for before anything is undone, so
   * nothing is written to the target while it is cleaned. `begin` answers null when there is nothing to do ahead.
   */
  ahead?: { from: string; begin(signal: AbortSignal): Promise<unknown> | null };
}

export type MoveOutcome =
  | { state: 'succeeded'; leftovers: string[] }
  | { state: 'failed'; error: string }
  | { state: 'cancelled'; error: string };

/**
 * Runs the steps in order, recording each outcome. Before every step not yet past the commit it asks whether the move
 * was cancelled. A step that throws before the commit fails the move: the steps done so far are undone in reverse
 * order (each undo recorded; an undo that fails is recorded with its reason and the next one still runs), so the
 * workspace is left on its source as it was. A step that throws after the commit is a leftover: recorded, reported,
 * and the move still succeeds. Steps with work `ahead` have it begun before the step it names; on a failure or a
 * cancel it is stopped and waited for first, and undone with the done steps (in the list's reverse order) when its
 * own `run` had not come yet.
 */
export async function runMoveSteps(
  steps: readonly MoveStep[],
  io: { record(step: MoveStepRecord): Promise<void>; cancelled(): Promise<boolean>; now(): Date },
): Promise<MoveOutcome> {
  const done: MoveStep[] = [];
  /** Steps whose `run` was called (done or failed), and those whose work began ahead, with that work settled. */
  const ran = new Set<MoveStep>();
  const begun = new Map<MoveStep, Promise<void>>();
  const stop = new AbortController();
  let committed = false;
  const line = (step: string, outcome: MoveStepOutcome, sentence: string) => io.record({ step, outcome, sentence, at: io.now().toISOString() });
  const undoAll = async () => {
    // Nothing begun ahead still writes to the target while it is undone.
    stop.abort();
    await Promise.all(begun.values());
    for (const step of [...steps].reverse()) {
      if (!done.includes(step) && !(begun.has(step) && !ran.has(step))) continue;
      if (!step.undo) continue;
      try {
        await line(step.name, 'undone', await step.undo());
      } catch (e) {
        await line(step.name, 'failed', `Could not be undone: ${sentenceOf(e)}`);
      }
    }
  };
  const leftovers: string[] = [];
  for (const step of steps) {
    if (!committed && (await io.cancelled())) {
      await undoAll();
      return { state: 'cancelled', error: `Cancelled before ${step.name}; the workspace stays on its source server` };
    }
    for (const later of steps) {
      if (later.ahead?.from !== step.name || begun.has(later) || committed) continue;
      const work = later.ahead.begin(stop.signal);
      // Its failure is the joining run's to report (or the undo's to clean): settled here, never unhandled.
      if (work) {
        begun.set(
          later,
          work.then(
            () => undefined,
            () => undefined,
          ),
        );
      }
    }
    ran.add(step);
    try {
      const result = await step.run();
      await line(step.name, result.skipped ? 'skipped' : 'done', result.sentence);
      done.push(step);
      if (step.commit) committed = true;
    } catch (e) {
      const why = sentenceOf(e);
      await line(step.name, 'failed', why);
      if (committed) {
        leftovers.push(`${step.name}: ${why}`);
        continue;
      }
      await undoAll();
      return { state: 'failed', error: `${step.name} failed: ${why}; the workspace stays on its source server as it was` };
    }
  }
  return { state: 'succeeded', leftovers };
}

/** An error's message as a sentence (a trailing period dropped, so it reads inside another sentence). */
export function sentenceOf(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.trim().replace(/\.$/, '') || 'no reason given';
}
