import { AppError } from '../errors';
import { CANCELLABLE, canMoveDeployment, deploymentSources, isDeploymentFinished } from './deployment-state';
import { decodeCursor, encodeCursor } from './deployment.service';

describe('deployment state table', () => {
  it('moves forward only: queued → building → deploying → live → superseded', () => {
    expect(canMoveDeployment('queued', 'building')).toBe(true);
    expect(canMoveDeployment('building', 'deploying')).toBe(true);
    expect(canMoveDeployment('deploying', 'live')).toBe(true);
    expect(canMoveDeployment('live', 'superseded')).toBe(true);
    expect(canMoveDeployment('live', 'building')).toBe(false);
    expect(canMoveDeployment('deploying', 'queued')).toBe(false);
  });

  it('never leaves a finished state, except a superseded release kept warm that serves again (decision 0038)', () => {
    for (const done of ['superseded', 'failed', 'cancelled'] as const) {
      for (const to of ['queued', 'building', 'deploying', 'superseded', 'failed', 'cancelled'] as const) {
        expect(canMoveDeployment(done, to)).toBe(false);
      }
    }
    expect(['failed', 'cancelled'].map((from) => canMoveDeployment(from as 'failed', 'live'))).toEqual([false, false]);
    expect(canMoveDeployment('superseded', 'live')).toBe(true);
    expect(canMoveDeployment('crashed', 'crashed')).toBe(true);
  });

  it('cancels only what has not rolled out, and fails whatever is still in progress', () => {
    expect(CANCELLABLE).toEqual(['queued', 'building']);
    expect(deploymentSources('cancelled').sort()).toEqual(['building', 'queued']);
    expect(deploymentSources('failed').sort()).toEqual(['building', 'deploying', 'queued']);
    expect(isDeploymentFinished('deploying')).toBe(false);
    expect(isDeploymentFinished('live')).toBe(true);
  });
});

describe('deployment history cursor', () => {
  it('round-trips and is opaque', () => {
    const cursor = encodeCursor(42);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(42);
  });

  it.each(['', '!!!', 'a'.repeat(201), Buffer.from('d:0').toString('base64url'), Buffer.from('x:5').toString('base64url'), Buffer.from('d:-1').toString('base64url')])(
    'refuses %j with invalid_cursor',
    (bad) => {
      let thrown: unknown;
      try {
        decodeCursor(bad);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).code).toBe('invalid_cursor');
    },
  );
});
