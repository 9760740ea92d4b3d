import { toAppError } from './errors';
import { ERROR_STATUS } from './error-status';

describe('toAppError: a dependency restarting', () => {
  it('answers 503 service_unavailable with Retry-After for PostgreSQL and Redis outages', () => {
    for (const err of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('Reached the max retries per request limit (which is 2).'), { name: 'MaxRetriesPerRequestError' }),
    ]) {
      const e = toAppError(err);
      expect(e.code).toBe('service_unavailable');
      expect(ERROR_STATUS[e.code]).toBe(503);
      expect(e.retryAfter).toBe(5);
    }
  });

  it('keeps other errors internal', () => {
    expect(toAppError(new Error('boom')).code).toBe('internal');
  });
});
