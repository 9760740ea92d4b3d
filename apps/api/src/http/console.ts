import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import expressStaticGzip from 'express-static-gzip';

/** Where `vite build` writes the console (apps/console/dist), next to this app's sources. */
export const CONSOLE_DIST = path.resolve(__dirname, '../../../console/dist');

// Paths that are the API's own: a deep link never shadows them, and a miss under them stays a JSON 404.
const API_PATHS = /^\/(v1|docs|healthz|readyz|metrics)(\/|$)/;
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * The web console (issue 28) on the API's own origin: hashed files under /assets cached for a year, index.html never
 * cached, both sent precompressed (.br, .gz written by the console's build) to clients that accept it. Any other
 * GET that is not the API's and names no file gets index.html, so deep links and reloads land in the app.
 * Undefined when the console was not built (the API runs without it).
 */
export function consoleRouter(dir: string = CONSOLE_DIST): Router | undefined {
  if (!existsSync(path.join(dir, 'index.html'))) return undefined;
  const files = expressStaticGzip(dir, {
    enableBrotli: true,
    orderPreference: ['br', 'gzip'],
    index: false,
    serveStatic: {
      index: false,
      fallthrough: true,
      setHeaders: (res: ServerResponse, file: string) => {
        if (path.relative(dir, file).startsWith(`assets${path.sep}`)) {
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        } else {
          res.setHeader('Cache-Control', 'no-cache');
          res.setHeader('Content-Security-Policy', CSP);
        }
      },
    },
  });
  const router = Router();
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || API_PATHS.test(req.path)) return next();
    // A deep link (no file extension): the single-page app answers it.
    if (!path.posix.extname(req.path) || req.path === '/index.html') req.url = '/index.html';
    return files(req, res, next);
  });
  return router;
}
