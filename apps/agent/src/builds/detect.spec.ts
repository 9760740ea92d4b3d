import path from 'node:path';
import { detect, pyprojectDependencies, readSourceTree, requirementNames, webLine, type BuildPlan, type SourceTree } from './detect';
import { DEFAULT_BASE_IMAGES, dockerfileFor, dockerignoreFor, installScript } from './dockerfiles';
import { BuildError } from './extract';

const tree = (files: Record<string, string>): SourceTree => ({ files: new Set(Object.keys(files)), read: (n) => files[n] ?? null });
const images = DEFAULT_BASE_IMAGES;
const pkg = (o: object) => JSON.stringify(o);

function fails(files: Record<string, string>): string {
  try {
    detect(tree(files));
  } catch (e) {
    expect(e).toBeInstanceOf(BuildError);
    return (e as Error).message;
  }
  throw new Error('detect did not fail');
}

function as<L extends BuildPlan['language']>(plan: BuildPlan, language: L): Extract<BuildPlan, { language: L }> {
  expect(plan.language).toBe(language);
  return plan as Extract<BuildPlan, { language: L }>;
}

describe('detection order', () => {
  it('a Dockerfile wins over everything, and its CMD over a Procfile', () => {
    const plan = detect(tree({ Dockerfile: 'FROM x', 'package.json': '{}', 'requirements.txt': '', 'index.html': '', Procfile: 'web: x' }));
    expect(plan.language).toBe('dockerfile');
    expect(plan.reasons.join('\n')).toMatch(/Dockerfile at the root[\s\S]*Procfile's web: line is not used/);
    expect(dockerfileFor(plan, { images, extraCa: false })).toBeNull();
  });
  it('Node before Python before static', () => {
    expect(detect(tree({ 'package.json': pkg({ main: 'a.js' }), 'requirements.txt': '', 'index.html': '' })).language).toBe('node');
    expect(detect(tree({ 'requirements.txt': '', 'main.py': '', 'index.html': '' })).language).toBe('python');
    expect(detect(tree({ 'index.html': '<h1>hi</h1>' })).language).toBe('static');
  });
  it('nothing known: the reason says what was looked for', () => {
    const reason = fails({ 'README.md': '', 'notes.txt': '' });
    expect(reason).toMatch(/Dockerfile.*package\.json.*requirements\.txt or pyproject\.toml.*index\.html/);
    expect(reason).toContain('README.md, notes.txt');
  });
  it('an empty root fails the same way', () => {
    expect(fails({})).toContain('None was there');
  });
});

describe('Node', () => {
  it('npm ci with package-lock.json, build script, start script; deps, prod-deps, build and runtime stages', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'tsc', start: 'node dist/a.js' }, devDependencies: { typescript: '5' } }), 'package-lock.json': '{}' })), 'node');
    expect(p).toMatchObject({ packageManager: 'npm', install: 'npm ci --no-audit --no-fund', build: 'npm run build', start: 'node dist/a.js', installFiles: ['package.json', 'package-lock.json'] });
    expect(p.reasons[0]).toBe('Node 24, the default: no .nvmrc, .node-version, .tool-versions, volta.node, engines.node · npm ci · tsc · node dist/a.js');
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df.split('\n')).toEqual([
      'FROM slipway/node-build:24 AS deps',
      'WORKDIR /app',
      'ENV NPM_CONFIG_UPDATE_NOTIFIER=false COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_INTEGRITY_KEYS=0',
      'COPY slipway/install.sh /usr/local/bin/slipway-install',
      'COPY ["app/package.json","app/package-lock.json","./"]',
      'RUN sh /usr/local/bin/slipway-install && mkdir -p node_modules',
      '',
      'FROM deps AS prod-deps',
      'RUN npm prune --omit=dev --no-audit --no-fund',
      '',
      'FROM deps AS build',
      'COPY app/ ./',
      'ENV NODE_ENV=production',
      'RUN npm run build && rm -rf node_modules',
      '',
      'FROM slipway/node:24',
      'WORKDIR /app',
      'COPY --from=prod-deps /app/node_modules ./node_modules',
      'COPY --from=build /app ./',
      'ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 PATH=/app/node_modules/.bin:$PATH',
      'CMD ["sh","-c","exec node dist/a.js"]',
      '',
    ]);
    expect(dockerignoreFor(p)).toContain('app/node_modules');
  });
  it('the Node.js major from engines picks both images', () => {
    const p = as(detect(tree({ 'package.json': pkg({ engines: { node: '^22' }, main: 'a.js' }) })), 'node');
    expect(p.major).toBe(22);
    const df = dockerfileFor(p, { images: { ...images, node: 'node:{major}-bookworm-slim', nodeBuild: 'node:{major}-bookworm' }, extraCa: false })!;
    expect(df).toMatch(/^FROM node:22-bookworm AS deps$/m);
    expect(df).toMatch(/^FROM node:22-bookworm-slim$/m);
    expect(fails({ 'package.json': pkg({ engines: { node: '16.x' }, main: 'a.js' }) })).toMatch(/^engines\.node asks for Node\.js 16\.x/);
  });
  it('pnpm through corepack: the version of packageManager (fetched by corepack) or of the lockfile', () => {
    const a = as(detect(tree({ 'package.json': pkg({ main: 'i.js', packageManager: 'pnpm@8.15.1' }), 'pnpm-lock.yaml': "lockfileVersion: '6.0'" })), 'node');
    expect(a.packageManager).toBe('pnpm');
    expect(a.install).toBe('pnpm install --frozen-lockfile');
    expect(a.prune).toBe('pnpm prune --prod');
    const b = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'x', build: 'y' } }), 'pnpm-lock.yaml': "lockfileVersion: '9.0'" })), 'node');
    expect(b.install).toBe('corepack install -g pnpm@9 && pnpm install --frozen-lockfile');
    expect(b).toMatchObject({ build: 'pnpm run build', start: 'x' });
  });
  it('yarn 1 by yarn.lock, yarn 2+ by packageManager or the lockfile (nothing pruned)', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node .' } }), 'yarn.lock': '' })), 'node');
    expect(p).toMatchObject({ packageManager: 'yarn', start: 'node .', installFiles: ['package.json', 'yarn.lock'] });
    expect(p.install).toBe('corepack install -g yarn@1 && yarn install --frozen-lockfile --non-interactive');
    const berry = as(detect(tree({ 'package.json': pkg({ main: 'a.js', packageManager: 'yarn@4.5.0' }), 'yarn.lock': '__metadata:\n  version: 8\n' })), 'node');
    expect(berry).toMatchObject({ install: 'yarn install --immutable', prune: null });
    expect(dockerfileFor(berry, { images, extraCa: false })).not.toContain('prod-deps');
  });
  it('a start script with shell syntax goes through npm', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'NODE_OPTIONS=--x node a.js && echo' } }) })), 'node');
    expect(p.start).toBe('npm start');
  });
  it('npm install without a lockfile; no build script is said so', () => {
    const p = as(detect(tree({ 'package.json': pkg({ main: 'server.js' }) })), 'node');
    expect(p).toMatchObject({ install: 'npm install --no-audit --no-fund', build: null, start: 'node server.js' });
    expect(p.reasons.join('\n')).toMatch(/No lockfile[\s\S]*no build script[\s\S]*main/);
  });
  it('starts server.js/index.js when there is no start script or main', () => {
    expect(as(detect(tree({ 'package.json': '{}', 'index.js': '' })), 'node').start).toBe('node index.js');
    expect(fails({ 'package.json': '{}' })).toMatch(/no start script, no main and no build script/);
  });
  it('a Procfile web: line overrides the start script', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node a' } }), Procfile: 'worker: x\nweb: node web.js --port $PORT\n' })), 'node');
    expect(p.start).toBe('node web.js --port $PORT');
    expect(dockerfileFor(p, { images, extraCa: false })).toContain('CMD ["sh","-c","exec node web.js --port $PORT"]');
  });
  it('refuses a package.json that is not JSON', () => {
    expect(fails({ 'package.json': '{ nope' })).toMatch(/package\.json is not valid JSON/);
  });
  it('quotes an odd main', () => {
    expect(as(detect(tree({ 'package.json': pkg({ main: "my app's.js" }) })), 'node').start).toBe("node 'my app'\\''s.js'");
  });
});

describe('framework presets', () => {
  it('Next.js started by next start: built as standalone output, served by its server; the summary line says it all', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' }, engines: { node: '>=20.9.0' } }), 'package-lock.json': '{}' })), 'node');
    expect(p.summary).toBe('Next.js · Node 24 from engines.node >=20.9.0 · npm ci · next build · next start (standalone server)');
    expect(p.output).toEqual({ kind: 'next-standalone' });
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).toContain('ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 NEXT_PRIVATE_STANDALONE=1\nRUN npm run build');
    // The previous release's caches in the project folder are dropped when the build changed.
    expect(df).toMatch(/^CMD \["sh","-c","if \[ \\"\$\(cat \.next\/BUILD_ID .*rm -rf \.next\/cache \.next\/server\/route-cache; .* && exec node server\.js"\]$/m);
  });
  it('Next.js with a custom start script or output: export', () => {
    const custom = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'node server.mjs' }, dependencies: { next: '16' } }) })), 'node');
    expect(custom).toMatchObject({ output: { kind: 'app' }, start: 'node server.mjs' });
    const files = { 'package.json': pkg({ scripts: { build: 'next build' }, dependencies: { next: '16' } }), 'next.config.mjs': "export default { output: 'export' }" };
    expect(as(detect(tree(files)), 'node').output).toEqual({ kind: 'static', dirs: ['out'], spa: false });
  });
  it("Next.js with output: 'standalone': the standalone server, its static files and public", () => {
    const files = { 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' } }), 'next.config.ts': "const c = { output: 'standalone' };" };
    const p = as(detect(tree(files)), 'node');
    expect(p.output).toEqual({ kind: 'next-standalone' });
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).toContain('COPY --from=build /app/.next/standalone ./\nCOPY --from=build /app/.next/static ./.next/static\nCOPY --from=build /app/public ./public');
    expect(df).toContain('HOSTNAME=0.0.0.0');
    expect(df).toContain('exec node server.js"]');
    expect(df).not.toContain('prod-deps');
  });
  it('Vite: no start script and a build → the output folder as a static SPA on the static image', () => {
    const files = { 'package.json': pkg({ scripts: { dev: 'vite', build: 'tsc -b && vite build' }, devDependencies: { vite: '8' }, dependencies: { react: '19' } }), 'vite.config.ts': "export default { build: { outDir: 'web' } }" };
    const p = as(detect(tree(files)), 'node');
    expect(p.output).toEqual({ kind: 'static', dirs: ['web', 'dist', 'build', 'out'], spa: true });
    expect(p.summary).toBe('Vite · Node 24, the default: no .nvmrc, .node-version, .tool-versions, volta.node, engines.node · npm install · tsc -b && vite build · static site');
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).toMatch(/^FROM slipway\/static:2$/m);
    expect(df).toContain('COPY --from=build /tmp/slipway-site/ /app/');
    expect(df).toContain('SLIPWAY_STATIC_FALLBACK=/index.html');
    expect(df).not.toContain('CMD');
  });
  it('NestJS: start:prod rather than nest start', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'nest build', start: 'nest start', 'start:prod': 'node dist/main' }, dependencies: { '@nestjs/core': '11' } }) })), 'node');
    expect(p).toMatchObject({ framework: 'NestJS', start: 'node dist/main' });
  });
  it('Fastify: FASTIFY_ADDRESS=0.0.0.0', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'fastify start -l info app.js' }, dependencies: { fastify: '5', 'fastify-cli': '8' } }) })), 'node');
    expect(p).toMatchObject({ framework: 'Fastify', start: 'fastify start -l info app.js', env: { FASTIFY_ADDRESS: '0.0.0.0' } });
    expect(dockerfileFor(p, { images, extraCa: false })).toContain('ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 FASTIFY_ADDRESS=0.0.0.0 PATH=/app/node_modules/.bin:$PATH');
  });
  it('Express: named, started by its start script', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node ./bin/www' }, dependencies: { express: '4' } }) })), 'node');
    expect(p).toMatchObject({ framework: 'Express', start: 'node ./bin/www' });
    // Nothing to build, no devDependencies: no build or prune stage; node_modules as installed, the source from the context.
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).not.toContain('AS build');
    expect(df).not.toContain('prod-deps');
    expect(df).toContain('COPY --from=deps /app/node_modules ./node_modules\nCOPY app/ ./\n');
  });
});

describe('Python', () => {
  it('requirements.txt installed as its own layer; main.py started', () => {
    const p = as(detect(tree({ 'requirements.txt': '', 'main.py': 'print(1)' })), 'python');
    expect(p.start).toBe('python main.py');
    expect(dockerfileFor(p, { images, extraCa: false })!.split('\n')).toEqual([
      'FROM slipway/python:3.11',
      'WORKDIR /app',
      'COPY ["app/requirements.txt","./"]',
      'RUN pip install --no-cache-dir -r requirements.txt',
      'COPY app/ ./',
      'ENV PORT=8080',
      'CMD ["sh","-c","exec python main.py"]',
      '',
    ]);
  });
  it('app.py when there is no main.py', () => {
    expect(as(detect(tree({ 'requirements.txt': 'requests', 'app.py': '' })), 'python').start).toBe('python app.py');
  });
  it('a gunicorn app', () => {
    const p = as(detect(tree({ 'requirements.txt': 'Flask==3.0\ngunicorn>=21 # server\n', 'app.py': 'from flask import Flask\napp = Flask(__name__)\n' })), 'python');
    expect(p.start).toBe('gunicorn --bind 0.0.0.0:$PORT app:app');
  });
  it('a uvicorn app', () => {
    const p = as(detect(tree({ 'requirements.txt': 'fastapi\nuvicorn[standard]\n', 'main.py': 'from fastapi import FastAPI\napp = FastAPI()\n' })), 'python');
    expect(p.start).toBe('uvicorn main:app --host 0.0.0.0 --port $PORT');
  });
  it('pyproject dependencies become a cached requirements layer', () => {
    const toml = '[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "x"\ndependencies = [\n  "gunicorn>=21",\n  \'flask\',\n]\n\n[tool.x]\ny = 1\n';
    const p = as(detect(tree({ 'pyproject.toml': toml, 'wsgi.py': 'application = make()\n' })), 'python');
    expect(p.requirements).toBe('gunicorn>=21\nflask\n');
    expect(p.start).toBe('gunicorn --bind 0.0.0.0:$PORT wsgi:application');
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df.indexOf('COPY slipway/requirements.txt')).toBeLessThan(df.indexOf('COPY app/ ./'));
  });
  it('a pyproject without dependencies is installed after the source', () => {
    const p = as(detect(tree({ 'pyproject.toml': '[project]\nname="x"\n', 'main.py': '' })), 'python');
    expect(p.installAfterSource).toBe(true);
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df.indexOf('RUN pip install --no-cache-dir .')).toBeGreaterThan(df.indexOf('COPY app/ ./'));
  });
  it('a Procfile web: line wins, shell syntax kept', () => {
    const p = as(detect(tree({ 'requirements.txt': 'gunicorn', 'app.py': 'app = Flask()', Procfile: 'web: python migrate.py && python serve.py' })), 'python');
    expect(p.start).toBe('python migrate.py && python serve.py');
    expect(dockerfileFor(p, { images, extraCa: false })).toContain('CMD ["sh","-c","python migrate.py && python serve.py"]');
  });
  it('no way to start it: says what was looked for', () => {
    expect(fails({ 'requirements.txt': '' })).toMatch(/no Procfile.*gunicorn or uvicorn.*main\.py nor app\.py/);
  });
});

describe('static', () => {
  it('served by the static image from /app', () => {
    const p = detect(tree({ 'index.html': '<p>hi</p>', 'style.css': '' }));
    expect(dockerfileFor(p, { images, extraCa: false })).toBe('FROM slipway/static:2\nWORKDIR /app\nCOPY app/ /app/\nENV PORT=8080\n');
  });
});

describe('extra CA bundle', () => {
  it('copied and exported before the install, only when configured', () => {
    const p = detect(tree({ 'package.json': pkg({ main: 'a.js' }) }));
    const df = dockerfileFor(p, { images, extraCa: true })!;
    expect(df).toContain('COPY slipway/ca.crt /usr/local/share/slipway/extra-ca.crt');
    expect(df).toMatch(/ENV NODE_EXTRA_CA_CERTS=\S+ SSL_CERT_FILE=\S+ PIP_CERT=\S+ REQUESTS_CA_BUNDLE=\S+ npm_config_cafile=\S+/);
    expect(df.indexOf('NODE_EXTRA_CA_CERTS')).toBeLessThan(df.indexOf('RUN npm install'));
    expect(dockerfileFor(p, { images, extraCa: false })).not.toContain('ca.crt');
  });
});

describe('helpers', () => {
  it('webLine', () => {
    expect(webLine('web: a b\n')).toBe('a b');
    expect(webLine('  web:a\r\n')).toBe('a');
    expect(webLine('worker: x')).toBeNull();
    expect(webLine('web:   ')).toBeNull();
  });
  it('requirementNames', () => {
    expect(requirementNames('# c\n-r other.txt\nFlask_Login>=1 ; python_version>"3"\nuvicorn[standard]\ngit+https://x\n')).toEqual(['flask-login', 'uvicorn', 'git']);
  });
  it('pyprojectDependencies', () => {
    expect(pyprojectDependencies('[project]\nname="a"\n')).toBeNull();
    expect(pyprojectDependencies('[tool.poetry]\ndependencies = ["x"]\n')).toBeNull();
    expect(pyprojectDependencies('[project]\ndependencies = ["a", "b>1"]\n')).toEqual(['a', 'b>1']);
  });
});

describe("the frameworks' own starters (fixtures/starters, made by their generators)", () => {
  const FIXTURES = path.resolve(__dirname, '../../../../fixtures/starters');
  const plan = async (name: string) => as(detect(await readSourceTree(path.join(FIXTURES, name))), 'node');

  it('SvelteKit with adapter-node: node build', async () => {
    const p = await plan('sveltekit-node');
    expect(p).toMatchObject({ framework: 'SvelteKit', build: 'npm run build', start: 'node build', output: { kind: 'app-output', paths: ['build', 'package.json'] }, buildEnv: {} });
  });
  it('SvelteKit with adapter-auto: built with adapter-node (GCP_BUILDPACKS), node build', async () => {
    const p = await plan('sveltekit-auto');
    expect(p).toMatchObject({ framework: 'SvelteKit', start: 'node build', buildEnv: { GCP_BUILDPACKS: 'true' } });
    expect(p.reasons.join('\n')).toContain('adapter-auto: built with adapter-node');
  });
  it('Nuxt: the .output server folder alone, node .output/server/index.mjs', async () => {
    const p = await plan('nuxt');
    expect(p).toMatchObject({ framework: 'Nuxt', start: 'node .output/server/index.mjs', output: { kind: 'server-dir', dir: '.output' } });
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).toContain('COPY --from=build /app/.output ./.output');
    expect(df).not.toContain('prod-deps');
  });
  it('Angular CSR: dist/<name>/browser as a static single-page app, not ng serve', async () => {
    const p = await plan('angular-csr');
    expect(p).toMatchObject({ framework: 'Angular', output: { kind: 'static', dirs: ['dist/angular-csr/browser'], spa: true } });
    expect(p.reasons.join('\n')).toContain("not ng serve, Angular's development server");
  });
  it('Angular SSR: node dist/<name>/server/server.mjs', async () => {
    const p = await plan('angular-ssr');
    expect(p).toMatchObject({ framework: 'Angular', start: 'node dist/angular-ssr/server/server.mjs', output: { kind: 'app' }, env: { NG_ALLOWED_HOSTS: '*' } });
  });
  it('Astro without an adapter: dist/ as a static site', async () => {
    const p = await plan('astro');
    expect(p).toMatchObject({ framework: 'Astro', output: { kind: 'static', dirs: ['dist'], spa: false } });
  });
  it('React Router: react-router-serve from its start script', async () => {
    const p = await plan('react-router');
    expect(p).toMatchObject({ framework: 'React Router', start: 'react-router-serve ./build/server/index.js', output: { kind: 'app' } });
  });
  it('Vue (create-vue): the Vite build as a static single-page app', async () => {
    const p = await plan('vue');
    expect(p).toMatchObject({ framework: 'Vite', output: { kind: 'static', spa: true } });
  });
  it('Hono: node dist/index.js, and the log names the port it hard-codes and the setting to change', async () => {
    const p = await plan('hono');
    expect(p).toMatchObject({ framework: 'Hono', build: 'npm run build', start: 'node dist/index.js' });
    expect(p.reasons).toContain("src/index.ts listens on port 3000, written in the code: Slipway sends requests to the app's port (PORT, 8080 unless set), so set the app's port to 3000 in its settings, or listen on process.env.PORT");
  });
  it('Koa: node app.js, PORT read', async () => {
    const p = await plan('koa');
    expect(p).toMatchObject({ framework: 'Koa', start: 'node app.js' });
    expect(p.reasons.join('\n')).not.toContain('written in the code');
  });
  it('an npm lockfile: npm ci, with npm install as the fallback for an out-of-sync lockfile', async () => {
    const p = await plan('vite-react-old-lock');
    expect(p.installFallback).toMatchObject({ lockfile: 'package-lock.json', command: 'npm install --no-audit --no-fund' });
    const df = dockerfileFor(p, { images, extraCa: false })!;
    expect(df).toContain('COPY slipway/install.sh /usr/local/bin/slipway-install');
    expect(df).toContain('RUN sh /usr/local/bin/slipway-install && mkdir -p node_modules');
    const script = installScript(p)!;
    expect(script).toContain('{ npm ci --no-audit --no-fund; echo $? > /tmp/slipway-install.rc; } 2>&1 | tee "$log"');
    expect(script).toContain("if grep -qE 'in sync|Missing: .* from lock file|Invalid: lock file' \"$log\"; then");
  });
});

describe('out-of-sync lockfiles of pnpm and yarn', () => {
  it('pnpm: --frozen-lockfile first, --no-frozen-lockfile when pnpm says the lockfile is outdated', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node a.js' } }), 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n" })), 'node');
    const script = installScript(p)!;
    expect(script).toContain('{ corepack install -g pnpm@9 && pnpm install --frozen-lockfile; echo $? > /tmp/slipway-install.rc; } 2>&1 | tee "$log"');
    expect(script).toContain("if grep -qE 'ERR_PNPM_OUTDATED_LOCKFILE|ERR_PNPM_LOCKFILE_CONFIG_MISMATCH|not up to date with' \"$log\"; then");
    expect(script).toContain('  pnpm install --no-frozen-lockfile');
  });
  it('yarn 1: --frozen-lockfile first, then yarn install', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node a.js' } }), 'yarn.lock': '# yarn lockfile v1\n' })), 'node');
    expect(installScript(p)).toContain("if grep -qE 'lockfile needs to be updated' \"$log\"; then");
  });
  it('no lockfile: a plain install, no script', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node a.js' } }) })), 'node');
    expect(installScript(p)).toBeNull();
  });
});

describe('BuildKit', () => {
  it("cache mounts of the app's own for the package manager and the framework's build cache; variables as a secret", () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' } }), 'package-lock.json': '{}' })), 'node');
    const df = dockerfileFor(p, { images, extraCa: false, buildkit: { cacheId: 'app-1', variables: true } })!;
    expect(df).toContain('RUN --mount=type=cache,id=app-1-pm,target=/cache,sharing=locked : app-1-cache && sh /usr/local/bin/slipway-install && mkdir -p node_modules');
    expect(df).toContain('COPY slipway/with-env.cjs /usr/local/share/slipway/with-env.cjs');
    expect(df).toContain(
      'RUN --mount=type=cache,id=app-1-build,target=/app/.next/cache,sharing=locked --mount=type=secret,id=slipway-variables,target=/run/secrets/slipway-variables.json : app-1-cache && node /usr/local/share/slipway/with-env.cjs npm run build',
    );
  });
  it("what follows the build runs in the build's own step, except removing node_modules when a cache mount lies inside it", () => {
    const next = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' } }), 'package-lock.json': '{}' })), 'node');
    const nextDf = dockerfileFor(next, { images, extraCa: false, buildkit: { cacheId: 'app-1', variables: false } })!;
    expect(nextDf).toContain(': app-1-cache && npm run build && mkdir -p public\n\nFROM slipway/node:24\n');
    expect(nextDf.match(/^RUN /gm)).toHaveLength(2);
    // React Router's cache (Vite's) is a mount inside node_modules: the removal is a step of its own, after the mount is gone.
    const rr = as(
      detect(
        tree({
          'package.json': pkg({ scripts: { build: 'react-router build', start: 'react-router-serve ./build/server/index.js' }, dependencies: { '@react-router/serve': '7' }, devDependencies: { '@react-router/dev': '7', vite: '7' } }),
          'package-lock.json': '{}',
        }),
      ),
      'node',
    );
    const rrDf = dockerfileFor(rr, { images, extraCa: false, buildkit: { cacheId: 'app-2', variables: false } })!;
    expect(rrDf).toContain('target=/app/node_modules/.vite,sharing=locked : app-2-cache && npm run build\nRUN rm -rf node_modules\n');
  });
  it("SvelteKit with adapter-node: the runtime image holds build/ and package.json over the production dependencies, nothing else of the build", () => {
    const svelte = as(
      detect(tree({ 'package.json': pkg({ scripts: { build: 'vite build' }, devDependencies: { '@sveltejs/kit': '2', '@sveltejs/adapter-node': '5', vite: '7' } }), 'svelte.config.js': "import adapter from '@sveltejs/adapter-node';", 'package-lock.json': '{}' })),
      'node',
    );
    const df = dockerfileFor(svelte, { images, extraCa: false, buildkit: { cacheId: 'app-3', variables: false } })!;
    expect(df).not.toContain('rm -rf node_modules');
    expect(df).toContain(
      'FROM slipway/node:24\nWORKDIR /app\nCOPY --from=prod-deps /app/node_modules ./node_modules\nCOPY --from=build /app/build ./build\nCOPY --from=build /app/package.json ./package.json\n',
    );
    expect(df).toMatch(/CMD \["sh","-c","exec node build"\]\n$/);
    // yarn 2+ prunes nothing: the whole /app of the build, as for any app.
    const berry = as(
      detect(tree({ 'package.json': pkg({ scripts: { build: 'vite build' }, packageManager: 'yarn@4.5.0', devDependencies: { '@sveltejs/kit': '2', '@sveltejs/adapter-node': '5' } }), 'svelte.config.js': "import adapter from '@sveltejs/adapter-node';", 'yarn.lock': '__metadata:\n  version: 8\n' })),
      'node',
    );
    expect(berry.output).toEqual({ kind: 'app' });
  });
  it("a framework's local build output is left out of the context when the app is built (an upload of a working copy)", () => {
    const next = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' } }), 'package-lock.json': '{}' })), 'node');
    expect(dockerignoreFor(next).split('\n')).toEqual(['app/.git', 'app/.hg', 'app/.svn', 'app/node_modules', 'app/.next', '']);
    const nuxt = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'nuxt build' }, dependencies: { nuxt: '4' } }) })), 'node');
    expect(dockerignoreFor(nuxt)).toContain('app/.nuxt\napp/.output\n');
    const express = as(detect(tree({ 'package.json': pkg({ scripts: { start: 'node app.js' }, dependencies: { express: '5' } }) })), 'node');
    expect(dockerignoreFor(express)).not.toMatch(/\.next|\.output/);
  });
  it('the classic builder gets neither', () => {
    const p = as(detect(tree({ 'package.json': pkg({ scripts: { build: 'next build', start: 'next start' }, dependencies: { next: '16' } }), 'package-lock.json': '{}' })), 'node');
    expect(dockerfileFor(p, { images, extraCa: false })).not.toMatch(/--mount|with-env/);
  });
});

describe('a start command that needs a development tool', () => {
  it('fails with a sentence naming the tool and its devDependency', () => {
    const reason = fails({ 'package.json': pkg({ scripts: { build: 'vite build', start: 'vite preview --port $PORT' }, devDependencies: { vite: '7' }, dependencies: { react: '19' } }) });
    expect(reason).toBe(
      "The start command vite preview --port $PORT runs vite, which comes from vite, a devDependency in package.json: the app's image holds production dependencies only. Move vite to dependencies, or start the built app without it (a start script such as node dist/index.js, or the app's start command setting)",
    );
  });
  it('tsc behind npm start is found too', () => {
    expect(fails({ 'package.json': pkg({ scripts: { start: 'tsc && node dist/index.js' }, devDependencies: { typescript: '5' } }) })).toContain('runs tsc, which comes from typescript');
  });
  it('a tool in dependencies is fine', () => {
    expect(detect(tree({ 'package.json': pkg({ scripts: { start: 'tsx src/index.ts' }, dependencies: { tsx: '4' }, devDependencies: { typescript: '5' } }) })).language).toBe('node');
  });
});

describe('SvelteKit with an adapter for another host', () => {
  it('fails with one sentence saying to use adapter-node', () => {
    const reason = fails({ 'package.json': pkg({ scripts: { build: 'vite build' }, devDependencies: { '@sveltejs/kit': '2', '@sveltejs/adapter-vercel': '5', vite: '7' } }) });
    expect(reason).toMatch(/^This SvelteKit app builds with @sveltejs\/adapter-vercel, which makes output for another host, not a Node\.js server: use @sveltejs\/adapter-node/);
  });
});
