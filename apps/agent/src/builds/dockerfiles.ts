import type { BuildPlan } from './detect';
import type { NodePlan } from './node-plan';

/** `node`, `nodeBuild` and `python` are templates: `{major}` / `{version}` stand for the app's runtime version. */
export interface BaseImages {
  node: string;
  nodeBuild: string;
  python: string;
  static: string;
}

/** The local images of deploy/images (a registry's: node:{major}-bookworm-slim, node:{major}-bookworm, python:{version}-slim). */
export const DEFAULT_BASE_IMAGES: BaseImages = { node: 'slipway/node:{major}', nodeBuild: 'slipway/node-build:{major}', python: 'slipway/python:{version}', static: 'slipway/static:2' };

/** An image template with the version filled in (`slipway/node:{major}` → `slipway/node:24`). */
export const imageFor = (template: string, version: string | number) => template.replaceAll('{major}', String(version)).replaceAll('{version}', String(version));

/**
 * The build context of a generated build: the upload under `app/`, the platform's own files under `slipway/`
 * (extra CA bundle, generated requirements), and at the root the generated Dockerfile and .dockerignore. The
 * upload's files never sit beside the Dockerfile, so nothing of ours lands in the image's /app.
 */
export const CONTEXT = { app: 'app', meta: 'slipway', ca: 'slipway/ca.crt', requirements: 'slipway/requirements.txt', install: 'slipway/install.sh' } as const;

/** Where the install script of a Node plan lands in the build image (outside /app: never in the runtime image). */
const INSTALL_SCRIPT = '/usr/local/bin/slipway-install';

const CA_DIR = '/usr/local/share/slipway';

/** The generated Dockerfile of a plan; null for an upload that brings its own. */
export function dockerfileFor(plan: BuildPlan, o: { images: BaseImages; extraCa: boolean }): string | null {
  switch (plan.language) {
    case 'dockerfile':
      return null;
    case 'static': {
      const lines = [`FROM ${o.images.static}`, 'WORKDIR /app', `COPY ${CONTEXT.app}/ /app/`, 'ENV PORT=8080'];
      if (plan.start) lines.push(cmd(plan.start));
      return lines.join('\n') + '\n';
    }
    case 'node':
      return nodeDockerfile(plan, o);
    case 'python': {
      const lines = [`FROM ${imageFor(o.images.python, plan.version)}`, 'WORKDIR /app', ...ca(o.extraCa)];
      if (plan.requirements) lines.push(`COPY ${CONTEXT.requirements} /tmp/slipway-requirements.txt`, `RUN ${plan.install}`);
      else if (!plan.installAfterSource) lines.push(copy(plan.installFiles.map((f) => `${CONTEXT.app}/${f}`), './'), `RUN ${plan.install}`);
      lines.push(`COPY ${CONTEXT.app}/ ./`);
      if (plan.installAfterSource) lines.push(`RUN ${plan.install}`);
      lines.push('ENV PORT=8080', cmd(plan.start));
      return lines.join('\n') + '\n';
    }
  }
}

/**
 * A Node.js app in stages: `deps` installs every dependency in the build image (compiler, python3: native modules
 * build) from the manifest and lockfile alone, a layer reused while they are unchanged; `prod-deps` prunes it to the
 * production dependencies (cached likewise); `build` adds the source and runs the build script. The runtime image,
 * without the compiler, gets the production dependencies and the built app (or Next's standalone server, or the
 * static site on the static image).
 */
function nodeDockerfile(plan: NodePlan, o: { images: BaseImages; extraCa: boolean }): string {
  const app = plan.output.kind === 'app';
  // The runtime image's node_modules come from its own stage (yarn 2+ excepted: it keeps the whole /app of the build).
  const separate = app && plan.prune !== null;
  const prune = separate && plan.devDependencies;
  // Nothing to build: the runtime image takes the source straight from the context.
  const direct = separate && !plan.build;
  // corepack checks npm's registry signatures of pnpm and yarn, which mirrors (and this platform's registry path) do
  // not serve; like npm's own installs, it then relies on the registry's sha512 (and packageManager's hash, if any).
  const lines = [
    `FROM ${imageFor(o.images.nodeBuild, plan.major)} AS deps`,
    'WORKDIR /app',
    ...ca(o.extraCa),
    'ENV NPM_CONFIG_UPDATE_NOTIFIER=false COREPACK_ENABLE_DOWNLOAD_PROMPT=0 COREPACK_INTEGRITY_KEYS=0',
  ];
  // An app without dependencies installs nothing: node_modules must still exist for the runtime stage's COPY.
  if (plan.installFallback) lines.push(`COPY ${CONTEXT.install} ${INSTALL_SCRIPT}`);
  lines.push(copy(plan.installFiles.map((f) => `${CONTEXT.app}/${f}`), './'), `RUN ${plan.installFallback ? `sh ${INSTALL_SCRIPT}` : plan.install} && mkdir -p node_modules`);
  if (prune) lines.push('', 'FROM deps AS prod-deps', `RUN ${plan.prune}`);
  if (!direct) lines.push('', 'FROM deps AS build', `COPY ${CONTEXT.app}/ ./`);
  if (!direct && Object.keys(plan.buildEnv).length) lines.push(`ENV ${Object.entries(plan.buildEnv).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  if (plan.build) lines.push(`RUN ${plan.build}`);
  switch (plan.output.kind) {
    case 'app':
      // The full dependency tree stays behind: the runtime image takes prod-deps' (or deps', with no devDependencies).
      if (separate && !direct) lines.push('RUN rm -rf node_modules');
      lines.push('', `FROM ${imageFor(o.images.node, plan.major)}`, 'WORKDIR /app');
      if (separate) lines.push(`COPY --from=${prune ? 'prod-deps' : 'deps'} /app/node_modules ./node_modules`);
      lines.push(direct ? `COPY ${CONTEXT.app}/ ./` : 'COPY --from=build /app ./');
      break;
    case 'next-standalone':
      lines.push('RUN mkdir -p public', '', `FROM ${imageFor(o.images.node, plan.major)}`, 'WORKDIR /app');
      lines.push('COPY --from=build /app/.next/standalone ./', 'COPY --from=build /app/.next/static ./.next/static', 'COPY --from=build /app/public ./public');
      break;
    case 'server-dir':
      lines.push('', `FROM ${imageFor(o.images.node, plan.major)}`, 'WORKDIR /app', `COPY --from=build /app/${plan.output.dir} ./${plan.output.dir}`);
      break;
    case 'static': {
      const dirs = plan.output.dirs;
      // The first candidate folder holding an index.html is the site; none is a failure that says where it looked.
      const find =
        `for d in ${dirs.map(shellWord).join(' ')}; do if [ -f "$d/index.html" ]; then echo "Serving the build output $d/"; cp -a "$d" /tmp/slipway-site; exit 0; fi; done; ` +
        `echo "slipway: The build left no index.html in ${dirs.map((d) => `${d}/`).join(', ')}, so there is no static site to serve (set a start command if the app is a server)" >&2; exit 1`;
      lines.push(`RUN ${find}`, '', `FROM ${o.images.static}`, 'WORKDIR /app', 'COPY --from=build /tmp/slipway-site/ /app/');
      lines.push(`ENV PORT=8080 HOST=0.0.0.0${plan.output.spa ? ' SLIPWAY_STATIC_FALLBACK=/index.html' : ''}`);
      return lines.join('\n') + '\n';
    }
  }
  const env = { NODE_ENV: 'production', PORT: '8080', HOST: '0.0.0.0', ...plan.env };
  lines.push(`ENV ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} PATH=/app/node_modules/.bin:$PATH`);
  lines.push(cmd(plan.start));
  return lines.join('\n') + '\n';
}

/**
 * The install step of a Node plan with a lockfile: the frozen install first; when the tool refuses the lockfile as
 * out of sync with package.json (another version of the tool wrote it, e.g. without optional platform packages), a
 * warning naming the missing entries, then the install without the lockfile. Every word here is the platform's.
 */
export function installScript(plan: NodePlan): string | null {
  const f = plan.installFallback;
  if (!f) return null;
  const missing = f.missing
    ? `missing=$(grep -oE '${f.missing}' "$log" | sed -E 's/^[^ ]+ //' | sort -u | head -n 20 | tr '\\n' ' ')\n` +
      `[ -n "$missing" ] && echo "slipway warning: entries missing from ${f.lockfile}: $missing"\n`
    : '';
  return [
    '#!/bin/sh',
    '# Generated by Slipway: install with the lockfile; an out-of-sync lockfile falls back to an install without it.',
    'log=/tmp/slipway-install.log',
    `{ ${plan.install}; echo $? > /tmp/slipway-install.rc; } 2>&1 | tee "$log"`,
    'rc=$(cat /tmp/slipway-install.rc)',
    '[ "$rc" = 0 ] && exit 0',
    `if grep -qE '${f.outOfSync}' "$log"; then`,
    `  echo "slipway warning: ${f.lockfile} is out of sync with package.json (written by another version of the tool?): installing with ${f.command.replace(/^[A-Z_]+=\S+ /, '')} instead. Run the install again on your machine and commit ${f.lockfile}."`,
    ...missing.split('\n').filter(Boolean).map((l) => `  ${l}`),
    `  ${f.command}`,
    '  exit $?',
    'fi',
    'exit "$rc"',
    '',
  ].join('\n');
}

function shellWord(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** What a generated build leaves out of the context: installed dependencies and VCS data of the upload. */
export function dockerignoreFor(plan: BuildPlan): string {
  const common = [`${CONTEXT.app}/.git`, `${CONTEXT.app}/.hg`, `${CONTEXT.app}/.svn`];
  const byLanguage: Record<string, string[]> = {
    node: [`${CONTEXT.app}/node_modules`],
    python: [`${CONTEXT.app}/.venv`, `${CONTEXT.app}/venv`, `${CONTEXT.app}/**/__pycache__`],
  };
  return [...common, ...(byLanguage[plan.language] ?? [])].join('\n') + '\n';
}

/**
 * The extra CA bundle, trusted by node (added to its own), npm, pip and OpenSSL (the system bundle plus the extra
 * one). Copied before the install, so it is part of the cached layers.
 */
function ca(extra: boolean): string[] {
  if (!extra) return [];
  return [
    `COPY ${CONTEXT.ca} ${CA_DIR}/extra-ca.crt`,
    `RUN cat /etc/ssl/certs/ca-certificates.crt ${CA_DIR}/extra-ca.crt > ${CA_DIR}/ca-bundle.crt 2>/dev/null || cp ${CA_DIR}/extra-ca.crt ${CA_DIR}/ca-bundle.crt`,
    `ENV NODE_EXTRA_CA_CERTS=${CA_DIR}/extra-ca.crt SSL_CERT_FILE=${CA_DIR}/ca-bundle.crt PIP_CERT=${CA_DIR}/ca-bundle.crt REQUESTS_CA_BUNDLE=${CA_DIR}/ca-bundle.crt npm_config_cafile=${CA_DIR}/ca-bundle.crt`,
  ];
}

/** COPY in its JSON form (names come from detection, but stay data all the same). */
function copy(sources: string[], dest: string): string {
  return `COPY ${JSON.stringify([...sources, dest])}`;
}

/**
 * The start command runs through sh -c, so $PORT and the Procfile's shell syntax work; exec when it is one command
 * (not after `NAME=value` assignments: `exec NAME=value …` would look for a program of that name).
 */
function cmd(start: string): string {
  const simple = !/[;&|<>()`\n]/.test(start) && !/^\s*[A-Za-z_][A-Za-z0-9_]*=/.test(start);
  return `CMD ${JSON.stringify(['sh', '-c', simple ? `exec ${start}` : start])}`;
}
