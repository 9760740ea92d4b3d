import { isRedisUnavailable } from './connection';

describe('isRedisUnavailable', () => {
  it('knows a command given up while Redis restarts, and refused connections', () => {
    expect(isRedisUnavailable(Object.assign(new Error('Reached the max retries per request limit (which is 2).'), { name: 'MaxRetriesPerRequestError' }))).toBe(true);
    expect(isRedisUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisUnavailable(new Error('LOADING Redis is loading the dataset in memory'))).toBe(true);
  });

  it('leaves command errors alone', () => {
    expect(isRedisUnavailable(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
  });
});
