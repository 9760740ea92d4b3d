import { AppError } from '@slipway/core';
import { isDatabaseUnavailable } from '@slipway/db';
import { isRedisUnavailable } from '@slipway/queue';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ERROR_STATUS } from './error-status';
import { loggerOf } from './request-log';
import { isInvalidTextError } from './strict-text';

/** Turns body-parser and other library errors into AppErrors, so one handler answers every error. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; expose?: boolean };
  if (e?.type === 'entity.parse.failed') return new AppError('invalid_json', 'The request body is not valid JSON');
  if (e?.type === 'request.size.invalid') return new AppError('invalid_json', 'The request body is shorter or longer than its Content-Length');
  // Express could not percent-decode a path segment (`/v1/workspaces/%E0%A4`): like any malformed id, not found.
  if (err instanceof URIError && e.status === 400) return new AppError('not_found', 'No such endpoint: the path is not valid percent-encoded UTF-8');
  // Last resort: text the database cannot store (U+0000, invalid Unicode) is the client's, never a 500.
  if (isInvalidTextError(err)) {
    return new AppError('validation_failed', 'The request holds text that cannot be stored (U+0000 or invalid Unicode)');
  }
  if (e?.type === 'entity.too.large') return new AppError('payload_too_large', 'The request body is too large');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'The request body encoding is not supported');
  }
  // PostgreSQL or Redis restarting: the request may be tried again in a moment (GET /readyz says when).
  if (isDatabaseUnavailable(err)) return new AppError('service_unavailable', 'The database is not reachable right now; try again shortly', undefined, RETRY_AFTER_S);
  if (isRedisUnavailable(err)) return new AppError('service_unavailable', 'The job queue is not reachable right now; try again shortly', undefined, RETRY_AFTER_S);
  return new AppError('internal', 'Something went wrong on our side');
}

const RETRY_AFTER_S = 5;

/** Last middleware: `{ error: { code, message, details? } }`, never a stack, SQL or server path. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const appError = toAppError(err);
  const status = ERROR_STATUS[appError.code];
  if (appError.code === 'service_unavailable') loggerOf(req)?.warn({ err: (err as Error)?.message }, 'request failed: a dependency is unavailable');
  else if (status >= 500) loggerOf(req)?.error({ err }, 'request failed');
  if (appError.retryAfter !== undefined) res.setHeader('Retry-After', String(Math.ceil(appError.retryAfter)));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(status).json({
    error: {
      code: appError.code,
      message: appError.message,
      ...(appError.details ? { details: appError.details } : {}),
    },
  });
};

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError('not_found', 'No such endpoint'));
};
