import type { SourceTree } from './detect';
import { BuildError } from './extract';
import { chooseNodeMajor, type NodeVersions } from './runtime-version';

export type PackageManager = 'npm' | 'pnpm' | 'yarn';

/** What the runtime image holds: the app with its production dependencies, Next's standalone server, or a static site. */
export type NodeOutput =
  | { kind: 'app' }
  | { kind: 'next-standalone' }
  | { kind: 'static'; dirs: string[]; spa: boolean }
  /** A self-contained server folder (Nuxt/Nitro's .output): the runtime image holds that folder alone. */
  | { kind: 'server-dir'; dir: string }
  /** A built server that needs the production dependencies (SvelteKit's adapter-node `build/`): those paths, package.json and them. */
  | { kind: 'app-output'; paths: string[] };

export interface NodePlan {
  language: 'node';
  reasons: string[];
  /** The build log's first line: "Next.js · Node 24 from engines.node >=20.9.0 · npm ci · next build · next start". */
  summary: string;
  major: number;
  framework: string | null;
  packageManager: PackageManager;
  /** Root files copied before the install step: the install layer is reused while these are unchanged. */
  installFiles: string[];
  install: string;
  /** When the lockfile is out of sync with package.json (another tool version wrote it): the install without it. */
  installFallback: InstallFallback | null;
  /** Leaves production dependencies only (its own cached stage); null keeps them all (yarn 2+). */
  prune: string | null;
  /** Without devDependencies there is nothing to prune: the installed tree is the production one. */
  devDependencies: boolean;
  build: string | null;
  start: string;
  output: NodeOutput;
  /** Variables of the runtime image besides PORT, HOST and NODE_ENV (a preset's). */
  env: Record<string, string>;
  /** Variables of the build step (a preset's). */
  buildEnv: Record<string, string>;
}

/** An install that refuses an out-of-sync lockfile, and the one that runs instead (with a warning in the log). */
export interface InstallFallback {
  lockfile: string;
  /** An extended regular expression (grep -E) matching the tool's out-of-sync message. */
  outOfSync: string;
  /** An extended regular expression whose matches name the missing entries (their first capture-less word after it). */
  missing: string | null;
  command: string;
}

export const NEXT_CONFIGS = ['next.config.js', 'next.config.mjs', 'next.config.ts', 'next.config.cjs', 'next.config.mts'];
export const VITE_CONFIGS = ['vite.config.ts', 'vite.config.js', 'vite.config.mjs', 'vite.config.mts', 'vite.config.cjs'];
export const SVELTE_CONFIGS = ['svelte.config.js', 'svelte.config.ts', 'svelte.config.mjs'];
export const ASTRO_CONFIGS = ['astro.config.mjs', 'astro.config.ts', 'astro.config.js', 'astro.config.mts'];
export const NUXT_CONFIGS = ['nuxt.config.ts', 'nuxt.config.js', 'nuxt.config.mjs'];
/** Server entries read for a port the app hard-codes (root files, and these under src/). */
export const ENTRY_FILES = ['server.js', 'index.js', 'app.js', 'main.js', 'server.ts', 'index.ts', 'app.ts', 'main.ts', 'src/index.ts', 'src/index.js', 'src/server.ts', 'src/server.js', 'src/app.ts', 'src/app.js', 'src/main.ts', 'src/main.js'];

interface PackageJson {
  scripts?: Record<string, unknown>;
  main?: unknown;
  packageManager?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  engines?: unknown;
  volta?: unknown;
}

/**
 * How a Node.js app is built: its Node.js major, package manager (corepack for pnpm and yarn), build script, start
 * command and what the runtime image holds, with the framework presets (Next.js, Vite, NestJS, Fastify, Express).
 */
export function planNode(tree: SourceTree, reasons: string[], procfileWeb: string | null, versions: NodeVersions): NodePlan {
  let pkg: PackageJson;
  try {
    pkg = JSON.parse(tree.read('package.json') ?? '') as PackageJson;
    if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg)) throw new Error('not an object');
  } catch (e) {
    throw new BuildError(`package.json is not valid JSON (${(e as Error).message})`);
  }
  const scripts = pkg.scripts && typeof pkg.scripts === 'object' ? pkg.scripts : {};
  const script = (name: string) => (typeof scripts[name] === 'string' && (scripts[name] as string).trim() ? (scripts[name] as string).trim() : null);
  const deps = { ...objectOf(pkg.devDependencies), ...objectOf(pkg.dependencies) };
  const has = (name: string) => name in deps;

  const node = chooseNodeMajor(tree, pkg, versions);
  const nodePart = node.because.startsWith('the default') ? `Node ${node.major}, ${node.because}` : `Node ${node.major} from ${node.because}`;
  reasons.push(`${nodePart}`);

  // --- package manager -----------------------------------------------------------------------------------------
  const declared = /^(npm|pnpm|yarn)@(\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.]+)?)/.exec(typeof pkg.packageManager === 'string' ? pkg.packageManager : '');
  const extras = ['.npmrc'].filter((f) => tree.files.has(f));
  let packageManager: PackageManager;
  let installFiles: string[];
  let install: string;
  let installShort: string;
  let prune: string | null;
  let installFallback: InstallFallback | null = null;
  const lockOf = declared?.[1] ?? (tree.files.has('pnpm-lock.yaml') ? 'pnpm' : tree.files.has('yarn.lock') ? 'yarn' : 'npm');
  if (lockOf === 'pnpm') {
    packageManager = 'pnpm';
    const version = declared?.[1] === 'pnpm' ? declared[2]! : pnpmForLockfile(tree.read('pnpm-lock.yaml'));
    installFiles = ['package.json', ...['pnpm-lock.yaml', 'pnpm-workspace.yaml', '.npmrc'].filter((f) => tree.files.has(f))];
    const frozen = tree.files.has('pnpm-lock.yaml') ? ' --frozen-lockfile' : '';
    // With packageManager in package.json corepack fetches that version itself; otherwise it is made the default.
    install = `${declared ? '' : `corepack install -g pnpm@${version} && `}pnpm install${frozen}`;
    installShort = `pnpm ${version} install${frozen}`;
    prune = 'pnpm prune --prod';
    if (frozen) installFallback = { lockfile: 'pnpm-lock.yaml', outOfSync: 'ERR_PNPM_OUTDATED_LOCKFILE|ERR_PNPM_LOCKFILE_CONFIG_MISMATCH|not up to date with', missing: null, command: 'pnpm install --no-frozen-lockfile' };
    reasons.push(`pnpm ${version} through corepack (${declared ? `packageManager ${pkg.packageManager as string}` : 'pnpm-lock.yaml'}): pnpm install${frozen}`);
  } else if (lockOf === 'yarn') {
    packageManager = 'yarn';
    const lock = tree.read('yarn.lock') ?? '';
    const berry = declared?.[1] === 'yarn' ? !declared[2]!.startsWith('1.') : /^__metadata:/m.test(lock);
    const version = declared?.[1] === 'yarn' ? declared[2]! : berry ? 'stable' : '1';
    installFiles = ['package.json', ...['yarn.lock', '.yarnrc', '.yarnrc.yml', ...extras].filter((f) => tree.files.has(f))];
    const frozen = tree.files.has('yarn.lock') ? (berry ? ' --immutable' : ' --frozen-lockfile') : '';
    install = `${declared ? '' : `corepack install -g yarn@${version} && `}yarn install${frozen}${berry ? '' : ' --non-interactive'}`;
    installShort = `yarn ${version} install${frozen}`;
    // Yarn 2+ has no prune of its own (workspaces focus needs a plugin in some versions): everything is kept.
    prune = berry ? null : 'yarn install --production --frozen-lockfile --non-interactive --prefer-offline';
    if (frozen) {
      installFallback = berry
        ? { lockfile: 'yarn.lock', outOfSync: 'YN0028|lockfile would have been modified', missing: null, command: 'YARN_ENABLE_IMMUTABLE_INSTALLS=false yarn install' }
        : { lockfile: 'yarn.lock', outOfSync: 'lockfile needs to be updated', missing: null, command: 'yarn install --non-interactive' };
      // Yarn 1's prune reinstalls with --frozen-lockfile: after a fallback the lockfile was rewritten, so it is in sync.
    }
    reasons.push(`yarn ${version} through corepack (${declared ? `packageManager ${pkg.packageManager as string}` : 'yarn.lock'}): yarn install${frozen}`);
  } else if (tree.files.has('package-lock.json') || tree.files.has('npm-shrinkwrap.json')) {
    packageManager = 'npm';
    const lock = tree.files.has('npm-shrinkwrap.json') ? 'npm-shrinkwrap.json' : 'package-lock.json';
    installFiles = ['package.json', lock, ...extras];
    install = 'npm ci --no-audit --no-fund';
    installShort = 'npm ci';
    prune = 'npm prune --omit=dev --no-audit --no-fund';
    installFallback = { lockfile: lock, outOfSync: 'in sync|Missing: .* from lock file|Invalid: lock file', missing: 'Missing: [^ ]+', command: 'npm install --no-audit --no-fund' };
    reasons.push(`Found ${lock}: dependencies installed with npm ci (npm install if the lockfile is out of sync with package.json)`);
  } else {
    packageManager = 'npm';
    installFiles = ['package.json', ...extras];
    install = 'npm install --no-audit --no-fund';
    installShort = 'npm install';
    prune = 'npm prune --omit=dev --no-audit --no-fund';
    reasons.push('No lockfile (package-lock.json, pnpm-lock.yaml or yarn.lock): dependencies installed with npm install');
  }

  const run = (name: string) => (packageManager === 'npm' ? `npm run ${name}` : `${packageManager} run ${name}`);
  const buildScript = script('build');
  const build = buildScript ? run('build') : null;
  reasons.push(buildScript ? `package.json has a build script (${buildScript}): ${build} runs after the install` : 'package.json has no build script: nothing to build');

  // --- framework presets ---------------------------------------------------------------------------------------
  let framework: string | null = null;
  const env: Record<string, string> = {};
  const buildEnv: Record<string, string> = {};
  let output: NodeOutput = { kind: 'app' };
  let start: string | null = null;
  let startShort: string | null = null;

  if (has('next')) {
    framework = 'Next.js';
    buildEnv.NEXT_TELEMETRY_DISABLED = '1';
    const config = NEXT_CONFIGS.map((f) => tree.read(f)).find((t) => t !== null) ?? '';
    const configured = /output\s*:\s*['"]([a-z]+)['"]/.exec(config)?.[1] ?? (/\boutput\s*:/.test(config) ? 'unknown' : null);
    const startsWithNext = /^next start(\s|$)/.test(script('start') ?? '') && !procfileWeb;
    if (configured === 'standalone' || (configured === null && startsWithNext && buildScript)) {
      // Next's standalone output is the production server `next start` runs, with only the files it traces: the
      // image holds no build-time dependencies (the starter: about 100 MB on the Node image instead of 350).
      if (configured === null) buildEnv.NEXT_PRIVATE_STANDALONE = '1';
      output = { kind: 'next-standalone' };
      env.HOSTNAME = '0.0.0.0';
      start = `${NEXT_FRESH_CACHES} && exec node server.js`;
      startShort = configured === null ? 'next start (standalone server)' : 'node server.js';
      reasons.push(
        configured === null
          ? "Next.js started by next start: built with standalone output (NEXT_PRIVATE_STANDALONE), the same production server with only the files it uses; the runtime image holds .next/standalone, .next/static and public, started with node server.js"
          : "Next.js with output: 'standalone': the runtime image holds .next/standalone, .next/static and public, started with node server.js",
      );
    } else if (configured === 'export' && buildScript) {
      output = { kind: 'static', dirs: ['out'], spa: false };
      start = startShort = 'static site';
      reasons.push("Next.js with output: 'export': the out/ folder is served as a static site by Caddy's file server");
    } else {
      reasons.push('Next.js: built with its build script, started by its start script');
    }
  } else if (has('nuxt') && buildScript && /\bnuxt build\b|\bnuxi build\b/.test(buildScript)) {
    framework = 'Nuxt';
    const startText = script('start');
    if (!procfileWeb && (!startText || /^(nuxt|nuxi) (start|preview|dev)\b/.test(startText))) {
      // Nitro's node-server output is self-contained (its own node_modules): the runtime image holds .output alone.
      output = { kind: 'server-dir', dir: '.output' };
      start = startShort = 'node .output/server/index.mjs';
      reasons.push("Nuxt: nuxt build writes Nitro's server to .output/; the runtime image holds .output alone, started with node .output/server/index.mjs (PORT and HOST set)");
    }
  } else if (has('@sveltejs/kit')) {
    framework = 'SvelteKit';
    const config = [...SVELTE_CONFIGS, ...VITE_CONFIGS].map((f) => tree.read(f) ?? '').join('\n');
    const adapter = ['node', 'auto', 'static'].find((a) => has(`@sveltejs/adapter-${a}`) && config.includes(`@sveltejs/adapter-${a}`)) ?? ['node', 'auto', 'static'].find((a) => has(`@sveltejs/adapter-${a}`));
    const out = /out\s*:\s*['"]([A-Za-z0-9_./-]+)['"]/.exec(config)?.[1] ?? 'build';
    if (!script('start') && !procfileWeb) {
      if (adapter === 'node' || adapter === 'auto') {
        start = startShort = `node ${shellQuote(out)}`;
        // adapter-node's output bundles the app and imports only package.json's dependencies: the runtime image needs
        // nothing else of the build (no source, no removal of the build's node_modules). yarn 2+ (no prune) keeps /app.
        if (prune !== null) output = { kind: 'app-output', paths: [out, 'package.json'] };
        if (adapter === 'auto') {
          // adapter-auto picks adapter-node when GCP_BUILDPACKS is set (and installs it during the build), as Railpack does.
          buildEnv.GCP_BUILDPACKS = 'true';
          reasons.push(`SvelteKit with adapter-auto: built with adapter-node (adapter-auto installs it during the build) and started with node ${out}; use @sveltejs/adapter-node in svelte.config.js to skip that install`);
        } else {
          reasons.push(`SvelteKit with adapter-node: started with node ${out}${prune !== null ? `; the runtime image holds ${out}/ and package.json with the production dependencies` : ''}`);
        }
      } else if (adapter === 'static') {
        output = { kind: 'static', dirs: [out], spa: false };
        start = startShort = 'static site';
        reasons.push(`SvelteKit with adapter-static: ${out}/ is served as a static site by Caddy's file server`);
      } else {
        const other = Object.keys(deps).find((d) => d.startsWith('@sveltejs/adapter-')) ?? 'no adapter';
        throw new BuildError(
          `This SvelteKit app builds with ${other}, which makes output for another host, not a Node.js server: use @sveltejs/adapter-node (npm install -D @sveltejs/adapter-node, then import it in svelte.config.js) or @sveltejs/adapter-auto`,
        );
      }
    }
  } else if (has('@angular/core') && tree.read('angular.json') !== null) {
    framework = 'Angular';
    const ng = angularOutput(tree.read('angular.json')!);
    const startText = script('start');
    if (ng && !procfileWeb && (!startText || /^ng (serve|s)\b/.test(startText))) {
      if (ng.ssr) {
        start = startShort = `node ${shellQuote(`${ng.dir}/server/server.mjs`)}`;
        // Angular's SSR engine refuses hosts outside allowedHosts (the starter's list is empty). Behind the ingress
        // the Host is always one of the app's own domains; the app's own NG_ALLOWED_HOSTS variable wins over this.
        env.NG_ALLOWED_HOSTS = '*';
        reasons.push(
          `Angular with server rendering (project ${ng.project}): started with ${start}${startText ? ` instead of ${startText}, Angular's development server` : ''}; NG_ALLOWED_HOSTS=* (the ingress passes only the app's own hosts; set the variable to narrow it)`,
        );
      } else {
        output = { kind: 'static', dirs: [ng.browser ? `${ng.dir}/browser` : ng.dir], spa: true };
        start = startShort = 'static site';
        reasons.push(
          `Angular (project ${ng.project}): ${output.dirs[0]}/ is served as a static site by Caddy's file server, with the single-page-app fallback to index.html${startText ? ` (not ${startText}, Angular's development server)` : ''}`,
        );
      }
    }
  } else if (has('astro') && buildScript && /\bastro build\b/.test(buildScript)) {
    framework = 'Astro';
    const config = ASTRO_CONFIGS.map((f) => tree.read(f) ?? '').join('\n');
    const outDir = /outDir\s*:\s*['"]\.?\/?([A-Za-z0-9_./-]+?)\/?['"]/.exec(config)?.[1] ?? 'dist';
    const startText = script('start');
    if (!procfileWeb && (!startText || /^astro (preview|dev)\b/.test(startText))) {
      if (has('@astrojs/node')) {
        start = startShort = `node ${shellQuote(`${outDir}/server/entry.mjs`)}`;
        reasons.push(`Astro with @astrojs/node: started with ${start} (HOST and PORT set)`);
      } else {
        output = { kind: 'static', dirs: [outDir], spa: false };
        start = startShort = 'static site';
        reasons.push(`Astro without a server adapter: ${outDir}/ is served as a static site by Caddy's file server`);
      }
    }
  } else if (has('@nestjs/core')) {
    framework = 'NestJS';
    if (script('start:prod')) reasons.push('NestJS: started with its start:prod script (the compiled dist/), not nest start (a compile at every start)');
  } else if (has('fastify')) {
    framework = 'Fastify';
    // fastify-cli listens on localhost unless told otherwise; the address of a container must be all interfaces.
    env.FASTIFY_ADDRESS = '0.0.0.0';
    reasons.push('Fastify: FASTIFY_ADDRESS=0.0.0.0 so fastify-cli listens on every interface');
  } else if (has('@react-router/serve') || has('@remix-run/serve')) {
    framework = has('@react-router/serve') ? 'React Router' : 'Remix';
  } else if (has('hono')) {
    framework = 'Hono';
  } else if (has('koa')) {
    framework = 'Koa';
  } else if (has('express')) {
    framework = 'Express';
  }

  if (start === null) {
    const startScript = framework === 'NestJS' && script('start:prod') ? 'start:prod' : script('start') ? 'start' : null;
    if (procfileWeb) {
      start = startShort = procfileWeb;
      reasons.push(`Start command from the Procfile's web: line: ${start}`);
    } else if (startScript) {
      const text = script(startScript)!;
      // A plain command runs as the container's process itself (signals reach it, no npm process in between).
      if (isPlainCommand(text)) {
        start = startShort = text;
        if (framework === 'Next.js' && /^next start(\s|$)/.test(text)) start = `${NEXT_FRESH_CACHES} && exec ${text}`;
        reasons.push(`Start command from package.json's ${startScript} script: ${text} (run directly, node_modules/.bin on PATH)`);
      } else {
        start = startScript === 'start' ? 'npm start' : `npm run ${startScript}`;
        startShort = `${start} (${text})`;
        reasons.push(`Start command from package.json's ${startScript} script: ${start} (${text})`);
      }
    } else if (typeof pkg.main === 'string' && pkg.main.trim() && !(buildScript && staticBuilder(has))) {
      start = startShort = `node ${shellQuote(pkg.main.trim())}`;
      reasons.push(`Start command from package.json's main: ${start}`);
    } else {
      const entry = ['server.js', 'index.js', 'app.js', 'main.js'].find((f) => tree.files.has(f));
      if (entry && !(buildScript && staticBuilder(has))) {
        start = startShort = `node ${entry}`;
        reasons.push(`No start script or main in package.json: starting ${entry}`);
      } else if (buildScript) {
        // No way to start a server, but a build: its output folder is a static site (Vite, Create React App, …).
        const spa = staticBuilder(has) !== null;
        const dirs = [...new Set([...viteOutDir(tree), 'dist', 'build', 'out'])];
        output = { kind: 'static', dirs, spa };
        framework ??= staticBuilder(has);
        start = startShort = 'static site';
        reasons.push(
          `No start script, main, Procfile or server file: the build's output folder (the first of ${dirs.map((d) => `${d}/`).join(', ')} with an index.html) is served as a static site by Caddy's file server` +
            (spa ? ', with the single-page-app fallback to index.html' : ''),
        );
      } else {
        throw new BuildError(
          'Could not tell how to start this Node.js app: package.json has no start script, no main and no build script (a build whose output is a static site), there is no Procfile with a web: line, and none of server.js, index.js, app.js, main.js is at the root',
        );
      }
    }
  }

  const devDependencies = Object.keys(objectOf(pkg.devDependencies)).length > 0;
  if ((output.kind === 'app' || output.kind === 'app-output') && prune !== null && devDependencies) {
    const text = start === 'npm start' ? script('start') : /^npm run (\S+)$/.exec(start!)?.[1] ? script(/^npm run (\S+)$/.exec(start!)![1]!) : start;
    const needs = devTool(text ?? '', pkg);
    if (needs) {
      throw new BuildError(
        `The start command ${text} runs ${needs.bin}, which comes from ${needs.pkg}, a devDependency in package.json: the app's image holds production dependencies only. ` +
          `Move ${needs.pkg} to dependencies, or start the built app without it (a start script such as node dist/index.js, or the app's start command setting)`,
      );
    }
  }
  const port = output.kind === 'static' ? null : hardCodedPort(tree);
  if (port) reasons.push(`${port.file} listens on port ${port.port}, written in the code: Slipway sends requests to the app's port (PORT, 8080 unless set), so set the app's port to ${port.port} in its settings, or listen on process.env.PORT`);

  const summary = [framework, nodePart, installShort, buildScript ?? 'no build', startShort].filter(Boolean).join(' · ');
  reasons.unshift(summary);
  return { language: 'node', reasons, summary, major: node.major, framework, packageManager, installFiles, install, installFallback, prune, devDependencies, build, start: start!, output, env, buildEnv };
}

/**
 * Next's runtime caches (`.next/cache`, `.next/server/route-cache`: prerendered pages, fetches, images) belong to one
 * build, but the project folder mounted on /app keeps files across releases: a container of a new build (another
 * BUILD_ID) starts without them, or it would serve the previous release's pages. A restart of the same build keeps them.
 */
const NEXT_FRESH_CACHES =
  'if [ "$(cat .next/BUILD_ID 2>/dev/null)" != "$(cat .next/cache/slipway-build-id 2>/dev/null)" ]; then rm -rf .next/cache .next/server/route-cache; mkdir -p .next/cache; cp .next/BUILD_ID .next/cache/slipway-build-id 2>/dev/null; fi; true';

/** Development tools a start command may name, by their command: the package that provides each. */
const DEV_TOOLS: Record<string, string> = {
  vite: 'vite',
  ng: '@angular/cli',
  tsc: 'typescript',
  'ts-node': 'ts-node',
  tsx: 'tsx',
  nodemon: 'nodemon',
  nest: '@nestjs/cli',
  astro: 'astro',
  nuxt: 'nuxt',
  nuxi: 'nuxi',
  'svelte-kit': '@sveltejs/kit',
  'react-scripts': 'react-scripts',
  'react-router': '@react-router/dev',
  'react-router-serve': '@react-router/serve',
  next: 'next',
  'fastify': 'fastify-cli',
};

/** The tool a start command runs that only a devDependency provides (the runtime image has production ones only). */
function devTool(text: string, pkg: PackageJson): { bin: string; pkg: string } | null {
  const bin = /^\s*(?:npx\s+)?([A-Za-z0-9_.@/-]+)/.exec(text)?.[1];
  if (!bin) return null;
  const from = DEV_TOOLS[bin];
  if (!from) return null;
  const dev = objectOf(pkg.devDependencies);
  const prod = objectOf(pkg.dependencies);
  return from in dev && !(from in prod) ? { bin, pkg: from } : null;
}

/** A port number the server's code hard-codes (`listen(3000)`, `port: 3000`) where it never reads PORT. */
function hardCodedPort(tree: SourceTree): { file: string; port: number } | null {
  for (const file of ENTRY_FILES) {
    const text = tree.read(file);
    if (!text || /process\.env(\.PORT|\[['"]PORT['"]\])|\bPORT\b/.test(text)) continue;
    const m = /\.listen\(\s*(\d{2,5})\b|\bport\s*:\s*(\d{2,5})\b/.exec(text);
    const port = Number(m?.[1] ?? m?.[2]);
    if (port && port !== 8080) return { file, port };
  }
  return null;
}

/** What angular.json says its first application builds: the output folder, whether it has a browser/ subfolder and a server. */
export function angularOutput(json: string): { project: string; dir: string; browser: boolean; ssr: boolean } | null {
  let config: { defaultProject?: string; projects?: Record<string, { projectType?: string; architect?: { build?: { builder?: string; options?: Record<string, unknown> } } }> };
  try {
    config = JSON.parse(json) as typeof config;
  } catch {
    return null;
  }
  const projects = Object.entries(config.projects ?? {}).filter(([, p]) => (p.projectType ?? 'application') === 'application');
  const [name, project] = projects.find(([n]) => n === config.defaultProject) ?? projects[0] ?? [];
  if (!name || !project) return null;
  const build = project.architect?.build;
  const options = build?.options ?? {};
  const out = options.outputPath;
  const base = typeof out === 'string' ? out : out && typeof out === 'object' && typeof (out as { base?: unknown }).base === 'string' ? (out as { base: string }).base : `dist/${name}`;
  const dir = base.replace(/^\.\//, '').replace(/\/$/, '');
  if (dir.startsWith('/') || dir.split('/').includes('..')) return null;
  // The application builder (Angular 17+) writes browser/ and server/ under the output path.
  const browser = /:application$/.test(build?.builder ?? '') || typeof options.browser === 'string';
  const ssr = browser && (Boolean(options.ssr) || typeof options.server === 'string') && options.outputMode !== 'static';
  return { project: name, dir, browser, ssr };
}

/** The dependency that makes an app with a build and no server a static single-page app, named for the log. */
function staticBuilder(has: (name: string) => boolean): string | null {
  if (has('astro')) return null;
  if (has('vite')) return 'Vite';
  if (has('react-scripts')) return 'Create React App';
  return null;
}

/** build.outDir of a Vite config, when it is a plain string literal. */
function viteOutDir(tree: SourceTree): string[] {
  for (const f of VITE_CONFIGS) {
    const m = /outDir\s*:\s*['"]([A-Za-z0-9_./-]+)['"]/.exec(tree.read(f) ?? '');
    if (m?.[1] && !m[1].startsWith('/') && !m[1].split('/').includes('..')) return [m[1].replace(/^\.\//, '').replace(/\/$/, '')];
  }
  return [];
}

/** A script that is one command with arguments: no shell operators, variables, assignments or quotes. */
function isPlainCommand(text: string): boolean {
  return /^[A-Za-z0-9_./@:=+-]+(\s+[A-Za-z0-9_./@:=+,-]+)*$/.test(text) && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(text) && !/^(npm|pnpm|yarn|npx)\s/.test(text);
}

function objectOf(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** pnpm's major from the lockfile version: 9.x lockfiles → pnpm 9, 6.x → pnpm 8, older → pnpm 7. */
function pnpmForLockfile(lock: string | null): string {
  const v = /lockfileVersion:\s*'?(\d+)/.exec(lock ?? '')?.[1];
  if (v === '9') return '9';
  if (v === '6') return '8';
  if (v === '5') return '7';
  return '9';
}

/** A file name as one shell word (the start command runs through sh -c so that $PORT expands). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
