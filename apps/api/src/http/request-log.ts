import type { Request, RequestHandler } from 'express';
import type { Logger as Pino } from 'pino';
import { assignRequestId } from './request-id';

const QUIET = new Set(['/healthz', '/readyz']);

/**
 * What every request gets first, in one middleware (each Express layer costs on the hot path, measured with
 * bench/api): its X-Request-Id, `X-Content-Type-Options: nosniff`, and one log line (method, path, status, duration,
 * request id) when info is enabled. Leaner than pino-http: nothing is allocated per request for logging unless
 * something logs (`loggerOf(req)`).
 */
export function requestLog(logger: Pino): RequestHandler {
  return (req, res, next) => {
    const reqId = assignRequestId(req, res);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (QUIET.has(req.path)) return next();
    if (logger.isLevelEnabled('debug')) logger.debug({ reqId, method: req.method, path: req.originalUrl.split('?')[0] }, 'request received');
    if (logger.isLevelEnabled('info')) {
      const started = performance.now();
      res.once('finish', () => {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logger.info({ reqId, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms }, 'request');
      });
    }
    next();
  };
}

/** A logger bound to the request's id (the app's logger is in `app.locals.logger`, set by createApp). */
export function loggerOf(req: Request): Pino | undefined {
  const logger = req.app?.locals?.logger as Pino | undefined;
  return logger?.child({ reqId: (req as { id?: string }).id });
}
