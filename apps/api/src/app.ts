import cookieParser from 'cookie-parser';
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger as Pino } from 'pino';
import { healthRoutes, type ReadinessCheck } from './health.routes';
import { consoleRouter } from './http/console';
import { docsRouter } from './http/docs';
import { errorHandler, notFoundHandler } from './http/errors';
import { requestLog } from './http/request-log';
import type { LatencyHistogram } from './observability/prometheus';

export interface AppDeps {
  logger: Pino;
  readiness: ReadinessCheck[];
  /** This process start's id, answered by /healthz and /readyz (config SLIPWAY_BOOT_ID; default a random one). */
  bootId?: string;
  /** Versioned API routers, mounted under /v1 in order. */
  v1: Router[];
  /** Issue 15: the HTTP latency histogram every request is timed into, and GET /metrics when a token opens it. */
  observability?: { http: LatencyHistogram; metrics?: RequestHandler };
  /** Issue 28: the folder of the built web console, served at `/` (default: apps/console/dist when built; false: none). */
  console?: string | false;
}

/** Builds the Express app from its dependencies; main.ts and the tests both call it. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('etag', false);
  app.locals.logger = deps.logger;
  app.use(requestLog(deps.logger));
  if (deps.observability) app.use(deps.observability.http.middleware());
  if (deps.observability?.metrics) app.use(deps.observability.metrics);
  // /v1 first: API requests do not walk the health and docs routers.
  app.use('/v1', cookieParser());
  for (const router of deps.v1) app.use('/v1', router);
  app.use(healthRoutes(deps.readiness, deps.bootId));
  app.use(docsRouter());
  const web = deps.console === false ? undefined : consoleRouter(deps.console);
  if (web) app.use(web);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
