import { isDatabaseUnavailable } from './availability';

describe('isDatabaseUnavailable', () => {
  it('knows PostgreSQL shutting down, starting up and refusing connections', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('looks through Prisma and its driver adapter', () => {
    const adapter = { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 } };
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { cause: adapter }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("Can't reach database server"), { code: 'P1001' }))).toBe(true);
    const known = Object.assign(new Error('x'), { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '57P01', kind: 'postgres' } } } });
    expect(isDatabaseUnavailable(known)).toBe(true);
  });

  it('leaves query errors and everything else alone', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
