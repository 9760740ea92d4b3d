import path from 'node:path';
import express, { Router } from 'express';

const OWN = path.join(__dirname, 'reference');
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_FILES = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png']);
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/** `GET /docs`: a readable reference of /v1/openapi.json, rendered by Swagger UI from local files only. */
export function docsRouter(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.sendFile(path.join(OWN, 'index.html'));
  });
  const own = express.static(OWN, { index: false, maxAge: '1h' });
  const swagger = express.static(SWAGGER_UI, { index: false, maxAge: '1d' });
  router.use('/docs', (req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    if (SWAGGER_FILES.has(req.path)) return swagger(req, res, next);
    if (req.path === '/reference.js' || req.path === '/reference.css') return own(req, res, next);
    next();
  });
  return router;
}
