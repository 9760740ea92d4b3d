import type { BuildPlan } from './detect';

export interface BaseImages {
  node: string;
  python: string;
  static: string;
}

/**
 * The build context of a generated build: the upload under `app/`, the platform's own files under `slipway/`
 * (extra CA bundle, generated requirements), and at the root the generated Dockerfile and .dockerignore. The
 * upload's files never sit beside the Dockerfile, so nothing of ours lands in the image's /app.
 */
export const CONTEXT = { app: 'app', meta: 'slipway', ca: 'slipway/ca.crt', requirements: 'slipway/requirements.txt' } as const;

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
    case 'node': {
      const lines = [`FROM ${o.images.node}`, 'WORKDIR /app', ...ca(o.extraCa), 'ENV NPM_CONFIG_UPDATE_NOTIFIER=false'];
      // Dependencies first, from the manifest and lockfile alone: this layer is reused while they are unchanged.
      lines.push(copy(plan.installFiles.map((f) => `${CONTEXT.app}/${f}`), './'), `RUN ${plan.install}`);
      lines.push(`COPY ${CONTEXT.app}/ ./`);
      if (plan.build) lines.push(`RUN ${plan.build}`);
      lines.push('ENV PORT=8080', cmd(plan.start));
      return lines.join('\n') + '\n';
    }
    case 'python': {
      const lines = [`FROM ${o.images.python}`, 'WORKDIR /app', ...ca(o.extraCa)];
      if (plan.requirements) lines.push(`COPY ${CONTEXT.requirements} /tmp/slipway-requirements.txt`, `RUN ${plan.install}`);
      else if (!plan.installAfterSource) lines.push(copy(plan.installFiles.map((f) => `${CONTEXT.app}/${f}`), './'), `RUN ${plan.install}`);
      lines.push(`COPY ${CONTEXT.app}/ ./`);
      if (plan.installAfterSource) lines.push(`RUN ${plan.install}`);
      lines.push('ENV PORT=8080', cmd(plan.start));
      return lines.join('\n') + '\n';
    }
  }
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

/** The start command runs through sh -c, so $PORT and the Procfile's shell syntax work; exec when it is one command. */
function cmd(start: string): string {
  const simple = !/[;&|<>()`\n]/.test(start);
  return `CMD ${JSON.stringify(['sh', '-c', simple ? `exec ${start}` : start])}`;
}
