import { AppError, type Logger } from '@slipway/core';

// The Docker engine's socket refusing or missing: the server is unavailable, the caller retries later.
const ENGINE_UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EACCES']);
// The data directory failing under the agent: the same, never a raw message with a server path.
const DISK_UNUSABLE = new Set(['EIO', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * The error policy of every handler: an AppError passes with its code; Docker or the disk being unreachable becomes
 * `node_unavailable`; anything else is logged here and reaches the caller as a bare `internal`.
 */
export function toCallError(e: unknown, rpc: string, logger: Logger): AppError {
  if (e instanceof AppError) return e;
  const { code, syscall } = (e ?? {}) as NodeJS.ErrnoException;
  if (code && ENGINE_UNREACHABLE.has(code) && (syscall === 'connect' || code === 'ECONNREFUSED')) {
    return new AppError('node_unavailable', 'The Docker engine is not reachable');
  }
  if (code && DISK_UNUSABLE.has(code)) {
    logger.error({ err: e, rpc }, 'the data directory is not usable');
    return new AppError('node_unavailable', "The server's disk is not usable");
  }
  logger.error({ err: e, rpc }, 'call failed');
  return new AppError('internal', `${rpc} failed on the server`);
}
