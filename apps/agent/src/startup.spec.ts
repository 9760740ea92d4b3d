// What the agent loads at start (issue 34 item 5: agent ≤ 60 MB idle). Libraries it needs only for rare work — the S3
// SDK (offsite backups), node-forge (certificates made at enrollment or on first start), argon2 (password hashing, never
// on an agent) — are loaded on first use, not with the modules that mention them: each costs the idle agent MBs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const LAZY = ['@aws-sdk/client-s3', 'node-forge', '@node-rs/argon2'];

/** Runs `code` in a fresh Node (sources through tsx) and returns the third-party packages loaded at each `mark(label)`. */
function loadedPackages(code: string): Record<string, string[]> {
  const script = `
    const Module = require('node:module');
    const seen = new Set();
    const load = Module._load;
    Module._load = function (request, parent, isMain) {
      try {
        const file = Module._resolveFilename(request, parent, isMain);
        const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules\\/)/.exec(file);
        if (m) seen.add(m[1]);
      } catch {}
      return load.apply(this, arguments);
    };
    const marks = {};
    const mark = (label) => { marks[label] = [...seen].sort(); };
    (async () => { ${code} })().then(() => process.stdout.write(JSON.stringify(marks)), (e) => { console.error(e); process.exit(1); });
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.join(ROOT, 'apps/agent'), encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string[]>;
}

describe('the agent at start', () => {
  it('loads none of the libraries of rare work, and each once that work is done', () => {
    const marks = loadedPackages(`
      require('./src/agent');
      require('./src/node/join');
      require('@slipway/config');
      mark('start');
      require('@slipway/pki').createKeyAndCsr('lazy.agent.slipway');
      mark('csr');
      await new (require('@slipway/core').Argon2idHasher)({ memoryCost: 1024, timeCost: 1, parallelism: 1 }).hash('lazy');
      mark('hash');
      require('@slipway/offsite').s3Client({ endpoint: 'http://127.0.0.1:1', region: 'us-east-1', bucket: 'b', prefix: '', pathStyle: true, accessKeyId: 'a', secretAccessKey: 's' });
      mark('s3');
    `);
    // The start imports what the agent needs to serve (the check below proves the hook saw its packages).
    expect(marks.start).toEqual(expect.arrayContaining(['@grpc/grpc-js', 'pino']));
    expect(marks.start!.filter((p) => LAZY.includes(p))).toEqual([]);
    expect(marks.csr).toContain('node-forge');
    expect(marks.hash).toContain('@node-rs/argon2');
    expect(marks.s3).toContain('@aws-sdk/client-s3');
  });

  // fetch() would load Node's bundled undici on first use (+9 MB of an idle agent): Caddy's admin API and the readiness
  // probe through the published port go through node:http.
  it("asks Caddy's admin API and an app's published port without loading fetch's undici", () => {
    const script = `
      const http = require('node:http');
      const server = http.createServer((req, res) => res.end(req.method === 'GET' ? 'null' : ''));
      server.listen(0, '127.0.0.1', async () => {
        const port = server.address().port;
        const { caddyRequest } = require('./src/ingress/caddy-admin');
        const { answersOnHostPort } = require('./src/containers/readiness');
        const admin = await caddyRequest('http://127.0.0.1:' + port, 'GET', '/config/', undefined, 5000);
        const probe = await answersOnHostPort(port, '', 5000);
        server.close();
        process.stdout.write(JSON.stringify({ admin: admin.status, probe, undici: process.moduleLoadList.filter((m) => /undici/.test(m)) }));
      });
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.join(ROOT, 'apps/agent'), encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ admin: 200, probe: { ok: true, detail: 'HTTP 200' }, undici: [] });
  });
});
