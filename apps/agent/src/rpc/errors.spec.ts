import { AppError, type Logger } from '@slipway/core';
import { toCallError } from './errors';

function recordingLogger(): Logger & { errors: unknown[] } {
  const errors: unknown[] = [];
  const logger = { errors, info: () => undefined, warn: () => undefined, debug: () => undefined, error: (o: unknown) => errors.push(o), child: () => logger };
  return logger;
}

const errno = (code: string, syscall: string, message = `${syscall} ${code} /var/lib/slipway/secret/path`) => Object.assign(new Error(message), { code, syscall });

describe('the error policy of every agent handler', () => {
  it('lets an AppError through with its code and message, unlogged', () => {
    const logger = recordingLogger();
    const e = new AppError('not_found', 'No such managed container');
    expect(toCallError(e, 'TailContainerLogs', logger)).toBe(e);
    expect(logger.errors).toEqual([]);
  });

  it("turns Docker's socket refusing or missing into node_unavailable", () => {
    for (const e of [errno('ECONNREFUSED', 'connect'), errno('ENOENT', 'connect'), errno('EACCES', 'connect')]) {
      expect(toCallError(e, 'ListManagedContainers', recordingLogger())).toMatchObject({ code: 'node_unavailable', message: 'The Docker engine is not reachable' });
    }
  });

  it('turns a failing disk into node_unavailable, logged, without the path', () => {
    const logger = recordingLogger();
    const out = toCallError(errno('EIO', 'write'), 'WriteFile', logger);
    expect(out).toMatchObject({ code: 'node_unavailable' });
    expect(out.message).not.toMatch(/\/var\/lib/);
    expect(logger.errors).toHaveLength(1);
  });

  it('logs anything else and answers a bare internal: no raw message, no server path', () => {
    const logger = recordingLogger();
    const out = toCallError(errno('ENOENT', 'open'), 'RolloutApp', logger);
    expect(out).toMatchObject({ code: 'internal', message: 'RolloutApp failed on the server' });
    expect(toCallError(new TypeError("Cannot read properties of undefined (reading 'x')"), 'Noop', logger).message).toBe('Noop failed on the server');
    expect(logger.errors).toHaveLength(2);
  });
});
