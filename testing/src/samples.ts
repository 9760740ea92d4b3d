// Sample apps for the build tests and bench/build, zipped on the spot: each answers GET / with a line naming
// itself (and a version the test sets), so a test can tell which build is serving.
import { writeZip, type ZipEntry } from './zip-writer';

export type SampleKind = 'node' | 'python' | 'static' | 'dockerfile';

/**
 * A small Node app with one real npm dependency (`ms`), a lockfile (so npm ci) and a start script. A different
 * `manifestNonce` changes package.json, so the dependency layer is built afresh (a cold build).
 */
export function nodeSample(version = 'v1', manifestNonce = ''): Record<string, string> {
  return {
    'package.json': JSON.stringify(
      { name: 'sample-node', version: '1.0.0', private: true, ...(manifestNonce ? { description: manifestNonce } : {}), scripts: { start: 'node server.js' }, dependencies: { ms: '2.1.3' } },
      null,
      2,
    ),
    'package-lock.json': JSON.stringify(
      {
        name: 'sample-node',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'sample-node', version: '1.0.0', dependencies: { ms: '2.1.3' } },
          'node_modules/ms': {
            version: '2.1.3',
            resolved: 'https://registry.npmjs.org/ms/-/ms-2.1.3.tgz',
            integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
          },
        },
      },
      null,
      2,
    ),
    'server.js': `const http = require('node:http');
const ms = require('ms');
const port = Number(process.env.PORT || 8080);
http.createServer((req, res) => res.end('node ${version} ' + ms(60000) + '\\n')).listen(port, () => console.log('listening on ' + port));
process.on('SIGTERM', () => process.exit(0));
`,
  };
}

/** A Python app with a requirements.txt that names nothing (PyPI is not reachable here), started as main.py. */
export function pythonSample(version = 'v1'): Record<string, string> {
  return {
    'requirements.txt': '# no dependencies: the standard library is enough\n',
    'main.py': `import os, signal, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"python ${version}\\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
port = int(os.environ.get("PORT", "8080"))
print("listening on", port, flush=True)
HTTPServer(("0.0.0.0", port), Handler).serve_forever()
`,
  };
}

export function staticSample(version = 'v1'): Record<string, string> {
  return { 'index.html': `static ${version}\n`, 'css/site.css': 'body { color: #123; }\n' };
}

/** An upload with its own Dockerfile (built as it is, from the local Node image). */
export function dockerfileSample(version = 'v1', base = 'slipway/node:24'): Record<string, string> {
  return {
    Dockerfile: `FROM ${base}\nWORKDIR /app\nCOPY server.js ./\nENV PORT=8080\nCMD ["node", "server.js"]\n`,
    'server.js': `require('node:http').createServer((q, s) => s.end('dockerfile ${version}\\n')).listen(Number(process.env.PORT || 8080));
process.on('SIGTERM', () => process.exit(0));
`,
  };
}

export function sample(kind: SampleKind, version = 'v1'): Record<string, string> {
  return { node: nodeSample, python: pythonSample, static: staticSample, dockerfile: dockerfileSample }[kind](version);
}

/** The files as a .zip, optionally inside one top folder (as zipping a folder does). */
export function zipOf(files: Record<string, string>, topFolder?: string): Buffer {
  const entries: ZipEntry[] = Object.entries(files).map(([name, data]) => ({ name: topFolder ? `${topFolder}/${name}` : name, data }));
  return writeZip(entries);
}
