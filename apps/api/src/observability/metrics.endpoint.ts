import { timingSafeEqual, createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { renderMetrics, type MetricsSources } from './prometheus';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics on the API's port, opened by a bearer token (config SLIPWAY_METRICS_TOKEN). Without a token the
 * handler passes, and the path answers 404 like any unknown one: the exposition is never public by accident.
 */
export function metricsEndpoint(o: { token: string; sources: MetricsSources }): RequestHandler {
  const expected = digest(`Bearer ${o.token}`);
  return (req, res, next) => {
    if (req.path !== '/metrics' || req.method !== 'GET' || !o.token) return next();
    const given = req.headers.authorization ?? '';
    // Hashes of equal length, compared in constant time: the token does not leak through timing.
    if (!timingSafeEqual(digest(given), expected)) {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"').json({ error: { code: 'unauthorized', message: 'A valid bearer token is required for /metrics' } });
      return;
    }
    renderMetrics(o.sources).then(
      (text) => res.status(200).setHeader('Content-Type', CONTENT_TYPE).setHeader('Cache-Control', 'no-store').send(text),
      next,
    );
  };
}

/** GET /metrics on a listener of its own (config SLIPWAY_METRICS_LISTEN: host:port, meant to stay private). */
export async function serveMetrics(listen: string, sources: MetricsSources): Promise<{ port: number; close(): Promise<void> }> {
  const i = listen.lastIndexOf(':');
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    renderMetrics(sources).then(
      (text) => res.writeHead(200, { 'Content-Type': CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  server.listen(Number(listen.slice(i + 1)), listen.slice(0, i));
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
