// Compiles the platform's processes to JavaScript so production runs `node` on them, not tsx:
// one esbuild bundle per entry point, next to its sources (apps/<app>/dist/main.js). Run by setup
// (`node deploy/build.mjs`); a second run with unchanged sources rewrites the same files.
//
// Our own code (apps/*, packages/*) is bundled; every third-party package stays external, required by
// a path relative to the bundle that esbuild resolved from the importing package, so pnpm's strict
// layout, native addons (argon2), Prisma's runtime and grpc load exactly as they do from source.
// Modules that read `__dirname` (proto files, migrations, API reference) keep their source folder.
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';

const ROOT = path.resolve(import.meta.dirname, '..');

export const ENTRIES = [
  { name: 'api', entry: 'apps/api/src/main.ts', out: 'apps/api/dist/main.js' },
  { name: 'worker', entry: 'apps/worker/src/main.ts', out: 'apps/worker/dist/main.js' },
  { name: 'agent', entry: 'apps/agent/src/main.ts', out: 'apps/agent/dist/main.js' },
  { name: 'cli', entry: 'apps/cli/src/main.ts', out: 'apps/cli/dist/main.js' },
  { name: 'migrate', entry: 'packages/db/src/migrate.cli.ts', out: 'packages/db/dist/migrate.cli.js' },
];

const isOwn = (file) => !file.split(path.sep).includes('node_modules');

// Third-party packages bundled rather than required, so that what they import can be replaced below.
const INLINE = new Set(['dockerode', 'docker-modem']);
// Replaced in the bundles: package → stand-in module.
const STUBS = { ssh2: path.join(ROOT, 'deploy/build/ssh2-stub.mjs') };
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

// Prisma's query compiler ships as a module holding the WebAssembly as one base64 string (4.5 MB), imported once by the
// generated client to compile the module. Required, that string and the module's source stay in the heap for good
// (+8.8 MB per process); read from the file when the client asks for it, they are garbage once it is compiled.
const WASM_TEXT = /^@prisma\/client\/runtime\/query_compiler_[a-z]+_bg\.[a-z]+\.wasm-base64\.js$/;

/** The module standing in for one of those files (`rel`: its path from the bundle's folder): same export, read on use. */
function wasmTextModule(rel) {
  return `const file = require('node:path').join(__slipway_bundle_dir, ${JSON.stringify(rel)});
Object.defineProperty(exports, 'wasm', {
  enumerable: true,
  get() {
    const text = require('node:fs').readFileSync(file, 'latin1');
    const m = /^const wasm = "([A-Za-z0-9+/=]*)";\\s*module\\.exports = \\{ wasm \\}\\s*$/.exec(text);
    // Another layout (a Prisma upgrade): the file itself, as the client would have loaded it.
    return m ? m[1] : require(file).wasm;
  },
});
`;
}

function layoutPlugin(outDir) {
  return {
    name: 'slipway-layout',
    setup(b) {
      // Bare specifiers (and their subpaths) of third-party packages: external, by relative path.
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('node:') || args.pluginData?.slipway) return undefined;
        const name = packageName(args.path);
        if (STUBS[name]) return { path: STUBS[name] };
        if (WASM_TEXT.test(args.path)) {
          const real = await b.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, pluginData: { slipway: true } });
          if (real.errors.length) return { errors: real.errors };
          return { path: path.relative(outDir, real.path), namespace: 'slipway-wasm-text' };
        }
        // Resolved as require() would: the CommonJS entry of packages that ship both.
        const resolved = await b.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, pluginData: { slipway: true } });
        if (resolved.errors.length) return { errors: resolved.errors };
        if (resolved.external || isOwn(resolved.path) || INLINE.has(name)) return resolved;
        let rel = path.relative(outDir, resolved.path);
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
      b.onLoad({ filter: /.*/, namespace: 'slipway-wasm-text' }, (args) => ({ contents: wasmTextModule(args.path), loader: 'js' }));
      // `__dirname` in our modules means the source folder, wherever the bundle is.
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!isOwn(args.path)) return undefined;
        let contents = await readFile(args.path, 'utf8');
        if (/\b__dirname\b/.test(contents)) {
          const rel = path.relative(outDir, path.dirname(args.path));
          contents = `const __dirname = require('node:path').join(__slipway_bundle_dir, ${JSON.stringify(rel)});\n${contents}`;
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Rewrites every non-ASCII character left in a bundle (esbuild escapes strings, not comments or regular expression
 * literals: `→` in a comment, `✘` in a pattern) as `\uXXXX`, which means the same in a pattern and is text in a comment.
 * One such character makes V8 keep the whole bundle's source as a two-byte string: 1.5 MB instead of 0.8 MB of each
 * process's heap (issue 34 item 5, bench/idle/README.md).
 */
export async function asciiOnly(file) {
  const code = await readFile(file, 'utf8');
  const ascii = code.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== code) await writeFile(file, ascii);
}

/** The web console (issue 28): type-checked, then bundled by Vite into apps/console/dist (.br and .gz beside each file). */
export function buildConsole() {
  const dir = path.join(ROOT, 'apps/console');
  for (const [cmd, args] of [['tsc', ['-p', 'tsconfig.json']], ['vite', ['build', '--logLevel', 'warn']]]) {
    const r = spawnSync(path.join(dir, 'node_modules/.bin', cmd), args, { cwd: dir, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`the console's ${cmd} failed (exit ${r.status ?? r.signal})`);
  }
}

export async function buildAll(only) {
  const started = Date.now();
  const entries = ENTRIES.filter((e) => !only?.length || only.includes(e.name));
  if (!only?.length || only.includes('console')) buildConsole();
  for (const e of entries) {
    const outfile = path.join(ROOT, e.out);
    await build({
      entryPoints: [path.join(ROOT, e.entry)],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      sourcemap: 'linked',
      logLevel: 'warning',
      banner: { js: 'const __slipway_bundle_dir = __dirname;' },
      plugins: [layoutPlugin(path.dirname(outfile))],
    });
    await asciiOnly(outfile);
  }
  process.stdout.write(`built ${[...entries.map((e) => e.out), ...(!only?.length || only.includes('console') ? ['apps/console/dist'] : [])].join(', ')} in ${Date.now() - started} ms\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const only = process.argv.slice(2);
  await buildAll(only);
  // The user CLI: one self-contained file (every dependency inside, Node >= 20), see apps/slipway/build.mjs.
  if (!only.length || only.includes('slipway')) {
    const { buildCli } = await import('../apps/slipway/build.mjs');
    process.stdout.write(`built ${path.relative(ROOT, await buildCli())}\n`);
  }
}
