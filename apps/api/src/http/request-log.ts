import type { RequestHandler } from 'express';
import type { Logger as Pino } from 'pino';

declare module 'http' {
  interface IncomingMessage {
    /** This request's logger (bound to its request id), made on first use. */
    log: Pino;
  }
}

const QUIET = new Set(['/healthz', '/readyz']);

/**
 * One log line per request (method, path, status, duration, request id) when info is enabled, and `req.log` for
 * handlers. Leaner than pino-http: no per-request child logger or serializers unless something logs, which keeps
 * the hot path cheap (measured with bench/api).
 */
export function requestLog(logger: Pino): RequestHandler {
  return (req, res, next) => {
    const reqId = (req as { id?: string }).id;
    let child: Pino | undefined;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: () => (child ??= logger.child({ reqId })) });
    if (!QUIET.has(req.path) && logger.isLevelEnabled('info')) {
      const started = performance.now();
      res.once('finish', () => {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logger.info({ reqId, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms }, 'request');
      });
    }
    next();
  };
}
