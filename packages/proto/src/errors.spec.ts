import * as grpc from '@grpc/grpc-js';
import { AppError } from '@slipway/core';
import { fromServiceError, toServiceError } from './errors';

describe('gRPC error table', () => {
  it('carries an AppError across the wire with its code', () => {
    const status = toServiceError(new AppError('not_found', 'No such managed container'));
    expect(status.code).toBe(grpc.status.NOT_FOUND);
    const back = fromServiceError(Object.assign(new Error('x'), { code: status.code, details: status.details, metadata: status.metadata }) as grpc.ServiceError, 'n1');
    expect(back).toMatchObject({ code: 'not_found', message: 'No such managed container' });
  });

  it('turns an unreachable agent into node_unavailable, which is retried', () => {
    for (const code of [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.UNAUTHENTICATED]) {
      const e = fromServiceError(Object.assign(new Error('down'), { code, details: 'down', metadata: new grpc.Metadata() }) as grpc.ServiceError, 'n1 (127.0.0.1:1)');
      expect(e.code).toBe('node_unavailable');
      expect(e.message).toContain('n1 (127.0.0.1:1)');
    }
  });

  it('hides nothing it should not: unknown errors are internal on the wire', () => {
    expect(toServiceError(new Error('boom')).code).toBe(grpc.status.INTERNAL);
  });
});
