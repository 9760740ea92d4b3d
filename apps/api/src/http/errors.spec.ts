import { AppError } from '@slipway/core';
import { toAppError } from './errors';

describe('toAppError: the last-resort mapping of library errors', () => {
  it('turns a database refusing the text it was given into 400 validation_failed, never 500', () => {
    // The shapes seen from Prisma 7 over @prisma/adapter-pg and from pg itself.
    const prisma = Object.assign(new Error('Invalid `db.user.create()` invocation'), {
      code: 'P2039',
      meta: {
        modelName: 'User',
        driverAdapterError: {
          name: 'DriverAdapterError',
          cause: { originalCode: '22021', kind: 'postgres', code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' },
        },
      },
    });
    const raw = Object.assign(new Error('Raw query failed'), { code: 'P2010', meta: { driverAdapterError: { cause: { originalCode: '22P05' } } } });
    const pg = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021', severity: 'ERROR' });
    const adapter = Object.assign(new Error('DriverAdapterError'), { cause: { originalCode: '22021' } });
    for (const err of [prisma, raw, pg, adapter]) {
      const mapped = toAppError(err);
      expect(mapped.code).toBe('validation_failed');
      expect(mapped.message).not.toMatch(/UTF8|0x00|invocation/);
    }
    expect(toAppError(Object.assign(new Error('unique'), { code: '23505' })).code).toBe('internal');
    expect(toAppError(Object.assign(new Error('x'), { code: 'P2002', meta: { driverAdapterError: { cause: { originalCode: '23505' } } } })).code).toBe('internal');
  });

  it('maps an undecodable path segment to 404 and a truncated body to invalid_json', () => {
    expect(toAppError(Object.assign(new URIError("Failed to decode param '%E0'"), { status: 400 })).code).toBe('not_found');
    expect(toAppError(Object.assign(new Error('request size did not match content length'), { type: 'request.size.invalid', status: 400 })).code).toBe('invalid_json');
    const own = new AppError('invalid_json', 'The request body is not valid UTF-8');
    expect(toAppError(Object.assign(own, { type: 'entity.verify.failed', status: 403 }))).toBe(own);
  });
});
