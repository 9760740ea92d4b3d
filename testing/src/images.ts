// Small app images for tests and benchmarks, built FROM the local slipway/node:24 (no registry is reachable):
// a Node HTTP server that answers its VERSION and environment values, one that never listens, one that exits, and
// the bad releases of the readiness tests (exit at once, exit after 1 s / 2 s, OOM, crash loop, loopback only).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';

export const APP_IMAGES = {
  v1: 'slipway-test/app:v1',
  v2: 'slipway-test/app:v2',
  v3: 'slipway-test/app:v3',
  silent: 'slipway-test/app:silent',
  crash: 'slipway-test/app:crash',
  // Releases that must never go live (issue 23); crashLater and exit9s get well past the settle window (even on a
  // loaded machine), then exit.
  exitNow: 'slipway-test/app:exit-now',
  exit1s: 'slipway-test/app:exit-1s',
  exit2s: 'slipway-test/app:exit-2s',
  oom: 'slipway-test/app:oom',
  crashLoop: 'slipway-test/app:crash-loop',
  loopback: 'slipway-test/app:loopback',
  crashLater: 'slipway-test/app:crash-after-8s',
  exit9s: 'slipway-test/app:exit-9s',
  // Issue 15: an app that uses resources on request (CPU, memory, network bytes) for the metrics tests.
  load: 'slipway-test/app:load-1',
} as const;

// GET / → "<VERSION>\n"; GET /env/NAME → the variable's value (404 when unset); GET /file/NAME → a file of /app.
// SIGTERM: stop accepting, finish what is in flight, exit 0 (PID 1 has no default handler).
const SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const version = process.env.VERSION;
const server = http.createServer((req, res) => {
  if (req.url === '/') return res.end(version + '\\n');
  if (req.url.startsWith('/env/')) {
    const v = process.env[req.url.slice(5)];
    if (v === undefined) { res.statusCode = 404; return res.end('unset\\n'); }
    return res.end(v);
  }
  if (req.url.startsWith('/file/')) {
    try { return res.end(fs.readFileSync('/app/' + req.url.slice(6))); } catch { res.statusCode = 404; return res.end('missing\\n'); }
  }
  res.statusCode = 404;
  res.end('not found\\n');
});
server.keepAliveTimeout = 2000;
server.listen(Number(process.env.PORT || 8080), () => console.log('listening on ' + (process.env.PORT || 8080) + ' as ' + version));
process.on('SIGTERM', () => {
  console.log('SIGTERM: draining');
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 3000).unref();
});
`;

const SILENT = `console.log('starting, but never listening'); setInterval(() => {}, 1000); process.on('SIGTERM', () => process.exit(0));`;
const CRASH = `console.log('boom: giving up'); setTimeout(() => process.exit(3), 200);`;

// The good server, then an exit: it answers (HTTP 200) for a while and dies.
const exitAfter = (ms: number) => `setTimeout(() => { console.log('exiting after ${ms} ms on purpose'); process.exit(5); }, ${ms}); require('/app/server.js');`;
const BAD = {
  exitNow: `console.log('nothing to do, exiting'); process.exit(0);`,
  // Touches every page it allocates, so the kernel's OOM killer (not V8's heap limit) ends it.
  oom: `console.log('loading a large model'); const kept = []; setInterval(() => kept.push(Buffer.alloc(16 * 1024 * 1024, 1)), 5);`,
  // What the Fastify starter did on this Node: a module missing at start, exit 1, again at every restart.
  crashLoop: `console.log('starting'); require('fastify-that-is-not-installed');`,
  loopback: `require('node:http').createServer((q, r) => r.end('loopback\\n')).listen(Number(process.env.PORT || 8080), '127.0.0.1', () => console.log('listening on 127.0.0.1 only'));`,
  crashLater: `console.log('working'); setTimeout(() => { console.log('boom: giving up'); process.exit(3); }, 8000);`,
};
const bad = (script: string) => ({ files: { 'server.js': SERVER, 'bad.js': script }, dockerfile: 'ENV VERSION=bad\nCOPY server.js bad.js /app/\nCMD ["node", "/app/bad.js"]' });

// GET /burn?ms=N: one core busy for N ms (in slices, so requests are still answered); GET /alloc?mb=N: N MB more
// held (written, so resident); GET /bytes?n=N: N bytes sent; GET /: "load".
const LOAD = `
const http = require('node:http');
const held = [];
http.createServer((req, res) => {
  const u = new URL(req.url, 'http://app');
  const n = Number(u.searchParams.get('ms') || u.searchParams.get('mb') || u.searchParams.get('n') || 0);
  if (u.pathname === '/burn') {
    const until = Date.now() + n;
    const slice = () => { const end = Math.min(until, Date.now() + 50); while (Date.now() < end) {} if (Date.now() < until) setImmediate(slice); };
    setImmediate(slice);
    return res.end('burning\\n');
  }
  if (u.pathname === '/alloc') { held.push(Buffer.alloc(n * 1024 * 1024, 7)); return res.end(String(held.length) + '\\n'); }
  if (u.pathname === '/bytes') return res.end(Buffer.alloc(n, 120));
  res.end('load\\n');
}).listen(Number(process.env.PORT || 8080), () => console.log('load app listening'));
process.on('SIGTERM', () => process.exit(0));
`;

const DOCKERFILES: Record<keyof typeof APP_IMAGES, { files: Record<string, string>; dockerfile: string }> = {
  v1: { files: { 'server.js': SERVER, 'seed.txt': 'seeded by v1\n' }, dockerfile: 'ENV VERSION=v1\nCOPY server.js seed.txt /app/\nCMD ["node", "/app/server.js"]' },
  v2: { files: { 'server.js': SERVER, 'seed.txt': 'seeded by v2\n' }, dockerfile: 'ENV VERSION=v2\nCOPY server.js seed.txt /app/\nCMD ["node", "/app/server.js"]' },
  v3: { files: { 'server.js': SERVER, 'seed.txt': 'seeded by v3\n' }, dockerfile: 'ENV VERSION=v3\nCOPY server.js seed.txt /app/\nCMD ["node", "/app/server.js"]' },
  silent: { files: { 'server.js': SILENT }, dockerfile: 'COPY server.js /app/\nCMD ["node", "/app/server.js"]' },
  crash: { files: { 'server.js': CRASH }, dockerfile: 'COPY server.js /app/\nCMD ["node", "/app/server.js"]' },
  exitNow: bad(BAD.exitNow),
  exit1s: bad(exitAfter(1000)),
  exit2s: bad(exitAfter(2000)),
  oom: bad(BAD.oom),
  crashLoop: bad(BAD.crashLoop),
  loopback: bad(BAD.loopback),
  crashLater: bad(BAD.crashLater),
  exit9s: bad(exitAfter(9000)),
  load: { files: { 'server.js': LOAD }, dockerfile: 'COPY server.js /app/\nCMD ["node", "/app/server.js"]' },
};

/** Builds the images that are missing (once; later calls find them) and answers their tags. */
export async function ensureAppImages(docker: Docker, base = 'slipway/node:24'): Promise<typeof APP_IMAGES> {
  for (const [key, tag] of Object.entries(APP_IMAGES) as [keyof typeof APP_IMAGES, string][]) {
    if ((await docker.listImages({ filters: { reference: [tag] } })).length > 0) continue;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-app-image-'));
    try {
      const spec = DOCKERFILES[key];
      for (const [name, content] of Object.entries(spec.files)) await writeFile(path.join(dir, name), content);
      await writeFile(path.join(dir, 'Dockerfile'), `FROM ${base}\nWORKDIR /app\n${spec.dockerfile}\n`);
      const stream = await docker.buildImage({ context: dir, src: ['Dockerfile', ...Object.keys(spec.files)] }, { t: tag });
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
          const failed = out?.find((o) => o.error);
          if (err || failed) reject(err ?? new Error(failed!.error));
          else resolve();
        }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return APP_IMAGES;
}
