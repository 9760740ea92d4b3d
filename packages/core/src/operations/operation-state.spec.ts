import { canMove, isFinished, OPERATION_TRANSITIONS, sourcesOf } from './operation-state';

describe('operation state table', () => {
  it('allows the moves of a job and its retries', () => {
    expect(canMove('queued', 'running')).toBe(true);
    expect(canMove('running', 'queued')).toBe(true); // a try failed, another follows
    expect(canMove('running', 'running')).toBe(true); // a stalled job picked up again
    expect(canMove('running', 'succeeded')).toBe(true);
    expect(canMove('queued', 'failed')).toBe(true);
  });

  it('never leaves a finished operation', () => {
    for (const to of Object.keys(OPERATION_TRANSITIONS) as (keyof typeof OPERATION_TRANSITIONS)[]) {
      expect(canMove('succeeded', to)).toBe(false);
      expect(canMove('failed', to)).toBe(false);
    }
    expect(isFinished('succeeded')).toBe(true);
    expect(isFinished('running')).toBe(false);
    expect(canMove('queued', 'succeeded')).toBe(false);
  });

  it('derives the WHERE of each conditional update', () => {
    expect(sourcesOf('running').sort()).toEqual(['queued', 'running']);
    expect(sourcesOf('failed').sort()).toEqual(['queued', 'running']);
    expect(sourcesOf('succeeded')).toEqual(['running']);
  });
});
