import { createPrivateKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { machineTimeZone } from '@slipway/core';
import { SETTINGS, type Role, type Setting } from './settings';

export { SETTINGS, type Role } from './settings';

export interface Config {
  mode: 'development' | 'production' | 'test';
  log: { level: string };
  api: {
    host: string;
    port: number;
    publicUrl: string;
    publicOrigin: string;
    secureCookies: boolean;
    bodyLimitBytes: number;
    /** This process start's id (SLIPWAY_BOOT_ID from the supervisor, else random): answered by /healthz and /readyz. */
    bootId: string;
  };
  database: { url: string };
  redis: { url: string; prefix: string };
  secrets: { sessionKey: string; encryptionKey: Buffer };
  apps: { domain: string; scheme: 'http' | 'https' };
  /** Every server's mesh listener (issue 31): other servers' ingress proxies its apps there; 0: off. */
  mesh: { port: number };
  controlPlane: { dataDir: string; agentAddresses: string[] };
  /** The operator API's Unix socket (issue 32, decision 0037); null: not served. */
  operator: { socket: string | null };
  worker: { concurrency: number; lockMs: number; nodeHealthIntervalMs: number; reconcileIntervalMs: number };
  /** Bounds of the deployments' build and deploy logs in PostgreSQL. */
  logs: { maxBytesPerDeployment: number; keepDeployments: number; keepDays: number; pruneIntervalMs: number };
  /** Database backups (issue 13): the nightly window (server-local hours) and the retention per kind. */
  backups: { window: { startHour: number; endHour: number }; timeZone: string; retentionDays: { scheduled: number; manual: number; pre_restore: number }; localCopies: number };
  agent: {
    listen: string;
    /** What the control plane dials, when set (the agent falls back to its listen address). */
    advertiseAddress: string;
    dataDir: string;
    nodeName: string;
    publicIpv4: string[];
    /** What this server offers to placement; 0: the whole machine. */
    capacity: { memoryMb: number; cpus: number };
    caddyAdminUrl: string;
    /** HAProxy's folder when it stands in front of Caddy with the app routes in its map (decision 0040); empty: Caddy alone. */
    haproxyDir: string;
    dockerSocket: string;
    extraCaBundle: string | null;
    /** How long a new app container must keep running and answering before its previous one is retired (a first release: before it is live). */
    readySettleMs: number;
    build: { cpus: number; memoryMb: number; timeoutMs: number; concurrency: number; diskMb: number; engine: 'classic' | 'buildkit'; dockerCli: string };
    /** Size of an app container's tmpfs /tmp. */
    appTmpMb: number;
    /** Removals (containers, images, folders) run at once on this server when workspaces or apps are deleted. */
    removalConcurrency: number;
    /** Free disk under which new builds, deployments and uploads are refused: the smaller of the two. */
    diskReserve: { percent: number; mb: number };
    /** Labelled on every Docker object the agent makes; empty: derived from the enrollment's CA. */
    platformId: string;
    /** Where workspace networks take their subnets: a CIDR range and the prefix length of each subnet. */
    network: { range: string; subnetPrefix: number };
    /** Custom domains: the DNS check's resolvers (empty: the system's), the HTTPS listener, the certificates' issuer. */
    domains: { resolvers: string[]; httpsPort: number; acme: { directory: string; email: string | null; trustedRootFile: string | null } };
  };
  /** `node`, `nodeBuild` and `python` are templates: `{major}` / `{version}` stand for the app's runtime version. */
  images: { node: string; nodeBuild: string; python: string; static: string; postgres: string; mysql: string; redis: string; mongodb: string };
  /** The runtime versions builds may choose from (agent only). */
  runtimes: { node: { majors: number[]; default: number }; python: { versions: string[]; default: string } };
  limits: { uploadZipBytes: number; uploadFileBytes: number };
  /**
   * Issue 15. Agent: how often counters are read and project folders measured. Control plane: how often servers'
   * minutes are pulled, and where Prometheus text is served (`listen`: a separate host:port; `token`: /metrics on
   * the API behind a bearer token; neither: not served).
   */
  metrics: { intervalMs: number; folderIntervalMs: number; collectIntervalMs: number; listen: string; token: string };
  /** The platform's GitHub App (issue 16); null when SLIPWAY_GITHUB_APP_ID is empty (GitHub operations answer 503). */
  github: GithubAppConfig | null;
}

export interface GithubAppConfig {
  appId: string;
  privateKeyFile: string;
  webhookSecret: string;
  slug: string;
  apiUrl: string;
  webUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid settings:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const PLACEHOLDERS = /^(change-?me|changeme|secret|placeholder|example|xxx+|dev|development|test)$/i;

/**
 * Reads the environment once, validates every setting the role needs, and returns a frozen
 * object. Throws ConfigError naming each bad or missing setting; main.ts prints it and exits.
 */
export function loadConfig(role: Role, env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const problems: string[] = [];
  const mode = (env.SLIPWAY_MODE ?? 'development') as Config['mode'];
  if (!['development', 'production', 'test'].includes(mode)) {
    problems.push(`SLIPWAY_MODE must be one of development, production, test (got "${mode}")`);
  }
  const values: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    if (!s.roles.includes(role)) continue;
    const raw = env[s.env];
    if (raw === undefined || raw === '') {
      const fallback = mode === 'production' && s.secret ? undefined : s.default;
      if (fallback === undefined) {
        problems.push(`${s.env} is required: ${s.description}`);
        continue;
      }
      values[s.env] = fallback;
      continue;
    }
    const parsed = parse(s, raw);
    if (typeof parsed === 'string' && parsed.startsWith('!')) {
      problems.push(`${s.env} ${parsed.slice(1)}`);
      continue;
    }
    if (s.secret && mode === 'production' && typeof parsed === 'string' && (PLACEHOLDERS.test(parsed) || parsed === s.default)) {
      problems.push(`${s.env} is a placeholder; set a real secret in production`);
      continue;
    }
    values[s.env] = parsed;
  }
  for (const s of SETTINGS) {
    if (!(s.env in values) || !s.schema) continue;
    if (!validatorFor(s)(values[s.env])) problems.push(`${s.env} ${describe(s)}`);
  }
  const encryptionKey = role === 'agent' ? Buffer.alloc(0) : decodeKey(values.SLIPWAY_ENCRYPTION_KEY, problems);
  const nodeVersions = values.SLIPWAY_NODE_VERSIONS as string[] | undefined;
  if (nodeVersions && !nodeVersions.includes(String(values.SLIPWAY_NODE_DEFAULT))) {
    problems.push(`SLIPWAY_NODE_DEFAULT (${String(values.SLIPWAY_NODE_DEFAULT)}) must be one of SLIPWAY_NODE_VERSIONS (${nodeVersions.join(', ')})`);
  }
  const github = role === 'control' ? githubOf(values, problems) : null;
  if (problems.length > 0) throw new ConfigError(problems);

  // Every value was validated against its setting's schema above.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const v = values as Record<string, any>;
  const publicUrl = role === 'control' ? new URL(v.SLIPWAY_PUBLIC_URL) : null;
  const config: Config = {
    mode,
    log: { level: v.SLIPWAY_LOG_LEVEL },
    api: {
      host: v.SLIPWAY_API_HOST,
      port: v.SLIPWAY_API_PORT,
      publicUrl: publicUrl ? publicUrl.toString().replace(/\/$/, '') : '',
      publicOrigin: publicUrl ? publicUrl.origin : '',
      secureCookies: publicUrl ? publicUrl.protocol === 'https:' : false,
      bodyLimitBytes: 1024 * 1024,
      bootId: v.SLIPWAY_BOOT_ID || randomUUID(),
    },
    database: { url: v.DATABASE_URL },
    redis: { url: v.REDIS_URL, prefix: v.SLIPWAY_REDIS_PREFIX },
    secrets: { sessionKey: v.SLIPWAY_SESSION_SECRET, encryptionKey },
    apps: { domain: v.SLIPWAY_APPS_DOMAIN, scheme: v.SLIPWAY_APPS_SCHEME },
    mesh: { port: v.SLIPWAY_MESH_PORT },
    controlPlane: {
      dataDir: v.SLIPWAY_DATA_DIR,
      agentAddresses: v.SLIPWAY_AGENT_ADDRESSES ?? [],
    },
    operator: { socket: v.SLIPWAY_OPERATOR_SOCKET === 'off' || !v.SLIPWAY_DATA_DIR ? null : v.SLIPWAY_OPERATOR_SOCKET || `${String(v.SLIPWAY_DATA_DIR).replace(/\/+$/, '')}/operator.sock` },
    worker: {
      concurrency: v.SLIPWAY_WORKER_CONCURRENCY,
      lockMs: v.SLIPWAY_WORKER_LOCK_MS,
      nodeHealthIntervalMs: v.SLIPWAY_NODE_HEALTH_INTERVAL_MS,
      reconcileIntervalMs: v.SLIPWAY_RECONCILE_INTERVAL_MS,
    },
    logs: {
      maxBytesPerDeployment: v.SLIPWAY_DEPLOY_LOG_MAX_BYTES,
      keepDeployments: v.SLIPWAY_LOG_KEEP_DEPLOYMENTS,
      keepDays: v.SLIPWAY_LOG_KEEP_DAYS,
      pruneIntervalMs: v.SLIPWAY_LOG_PRUNE_INTERVAL_MS,
    },
    backups: {
      window: { startHour: v.SLIPWAY_BACKUP_WINDOW_START_HOUR, endHour: v.SLIPWAY_BACKUP_WINDOW_END_HOUR },
      // Read when the backups' schedule needs it (machineTimeZone: ICU's data stays out of processes that never do).
      get timeZone(): string {
        return v.SLIPWAY_BACKUP_TIMEZONE || machineTimeZone();
      },
      retentionDays: { scheduled: v.SLIPWAY_BACKUP_KEEP_SCHEDULED_DAYS, manual: v.SLIPWAY_BACKUP_KEEP_MANUAL_DAYS, pre_restore: v.SLIPWAY_BACKUP_KEEP_PRE_RESTORE_DAYS },
      localCopies: v.SLIPWAY_BACKUP_LOCAL_COPIES,
    },
    agent: {
      listen: v.SLIPWAY_AGENT_LISTEN,
      advertiseAddress: v.SLIPWAY_AGENT_ADVERTISE_ADDRESS ?? '',
      dataDir: v.SLIPWAY_AGENT_DATA_DIR,
      nodeName: v.SLIPWAY_AGENT_NODE_NAME,
      publicIpv4: v.SLIPWAY_AGENT_PUBLIC_IPV4 ?? [],
      capacity: { memoryMb: v.SLIPWAY_AGENT_MEMORY_MB, cpus: v.SLIPWAY_AGENT_CPUS },
      caddyAdminUrl: v.SLIPWAY_CADDY_ADMIN_URL,
      haproxyDir: v.SLIPWAY_HAPROXY_DIR ?? '',
      dockerSocket: v.DOCKER_SOCKET,
      extraCaBundle: v.SLIPWAY_BUILD_CA_BUNDLE || null,
      readySettleMs: v.SLIPWAY_READY_SETTLE_MS,
      build: {
        cpus: v.SLIPWAY_BUILD_CPUS,
        memoryMb: v.SLIPWAY_BUILD_MEMORY_MB,
        timeoutMs: v.SLIPWAY_BUILD_TIMEOUT_S * 1000,
        concurrency: v.SLIPWAY_BUILD_CONCURRENCY,
        diskMb: v.SLIPWAY_BUILD_DISK_MB,
        engine: v.SLIPWAY_BUILD_ENGINE as 'classic' | 'buildkit',
        dockerCli: v.SLIPWAY_BUILD_DOCKER_CLI,
      },
      appTmpMb: v.SLIPWAY_APP_TMP_MB,
      removalConcurrency: v.SLIPWAY_REMOVAL_CONCURRENCY,
      diskReserve: { percent: v.SLIPWAY_DISK_RESERVE_PERCENT, mb: v.SLIPWAY_DISK_RESERVE_MB },
      platformId: v.SLIPWAY_PLATFORM_ID ?? '',
      network: { range: v.SLIPWAY_NETWORK_RANGE, subnetPrefix: v.SLIPWAY_NETWORK_SUBNET_PREFIX },
      domains: {
        resolvers: v.SLIPWAY_DNS_RESOLVERS ?? [],
        httpsPort: v.SLIPWAY_HTTPS_PORT,
        acme: { directory: v.SLIPWAY_ACME_DIRECTORY, email: v.SLIPWAY_ACME_EMAIL || null, trustedRootFile: v.SLIPWAY_ACME_CA_ROOT || null },
      },
    },
    images: {
      node: v.SLIPWAY_IMAGE_NODE,
      nodeBuild: v.SLIPWAY_IMAGE_NODE_BUILD ?? 'slipway/node-build:{major}',
      python: v.SLIPWAY_IMAGE_PYTHON,
      static: v.SLIPWAY_IMAGE_STATIC,
      postgres: v.SLIPWAY_IMAGE_POSTGRES,
      mysql: v.SLIPWAY_IMAGE_MYSQL,
      redis: v.SLIPWAY_IMAGE_REDIS,
      mongodb: v.SLIPWAY_IMAGE_MONGODB,
    },
    runtimes: {
      node: { majors: ((v.SLIPWAY_NODE_VERSIONS as string[] | undefined) ?? []).map(Number), default: v.SLIPWAY_NODE_DEFAULT ?? 24 },
      python: { versions: v.SLIPWAY_PYTHON_VERSIONS ?? [], default: (v.SLIPWAY_PYTHON_VERSIONS as string[] | undefined)?.[0] ?? '3.11' },
    },
    limits: { uploadZipBytes: v.SLIPWAY_UPLOAD_ZIP_MAX_BYTES, uploadFileBytes: v.SLIPWAY_UPLOAD_FILE_MAX_BYTES },
    metrics: {
      intervalMs: v.SLIPWAY_METRICS_INTERVAL_MS ?? 10_000,
      folderIntervalMs: v.SLIPWAY_METRICS_FOLDER_INTERVAL_MS ?? 300_000,
      collectIntervalMs: v.SLIPWAY_METRICS_COLLECT_INTERVAL_MS ?? 60_000,
      listen: v.SLIPWAY_METRICS_LISTEN ?? '',
      token: v.SLIPWAY_METRICS_TOKEN ?? '',
    },
    github,
  };
  return deepFreeze(config);
}

function parse(s: Setting, raw: string): unknown {
  switch (s.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw.trim())) return `!must be a whole number (got "${raw}")`;
      return Number(raw);
    }
    case 'boolean': {
      const t = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['0', 'false', 'no', 'off'].includes(t)) return false;
      return `!must be true or false (got "${raw}")`;
    }
    case 'list':
      return raw.split(',').map((x) => x.trim()).filter(Boolean);
    default:
      return raw;
  }
}

const ajv = new Ajv({ allErrors: true });
addFormats(ajv);
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorFor(s: Setting) {
  let v = validators.get(s.env);
  if (!v) {
    v = ajv.compile(s.schema!);
    validators.set(s.env, v);
  }
  return v;
}

function describe(s: Setting): string {
  const errors = validatorFor(s).errors ?? [];
  return `is invalid: ${errors.map((e) => e.message).join('; ')} (${s.description})`;
}

function decodeKey(raw: unknown, problems: string[]): Buffer {
  if (typeof raw !== 'string') return Buffer.alloc(0);
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    problems.push('SLIPWAY_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

/**
 * The GitHub App's settings with its private key read from SLIPWAY_GITHUB_PRIVATE_KEY_FILE (null when GitHub is not
 * configured). A file that cannot be read, or is not a PEM private key, stops the process with a ConfigError naming it.
 */
export function readGithubApp(github: GithubAppConfig | null): (GithubAppConfig & { privateKeyPem: string }) | null {
  if (!github) return null;
  let pem: string;
  try {
    pem = readFileSync(github.privateKeyFile, 'utf8');
  } catch (e) {
    throw new ConfigError([`SLIPWAY_GITHUB_PRIVATE_KEY_FILE (${github.privateKeyFile}) cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  try {
    createPrivateKey(pem);
  } catch {
    throw new ConfigError([`SLIPWAY_GITHUB_PRIVATE_KEY_FILE (${github.privateKeyFile}) is not a PEM private key (download one from the GitHub App's settings)`]);
  }
  return { ...github, privateKeyPem: pem };
}

/** The GitHub App settings go together: an app id asks for its key file, webhook secret and slug. */
function githubOf(values: Record<string, unknown>, problems: string[]): GithubAppConfig | null {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : '');
  const appId = str('SLIPWAY_GITHUB_APP_ID');
  if (!appId) return null;
  for (const k of ['SLIPWAY_GITHUB_PRIVATE_KEY_FILE', 'SLIPWAY_GITHUB_WEBHOOK_SECRET', 'SLIPWAY_GITHUB_APP_SLUG']) {
    if (!str(k)) problems.push(`${k} is required when SLIPWAY_GITHUB_APP_ID is set`);
  }
  return {
    appId,
    privateKeyFile: str('SLIPWAY_GITHUB_PRIVATE_KEY_FILE'),
    webhookSecret: str('SLIPWAY_GITHUB_WEBHOOK_SECRET'),
    slug: str('SLIPWAY_GITHUB_APP_SLUG'),
    apiUrl: str('SLIPWAY_GITHUB_API_URL'),
    webUrl: str('SLIPWAY_GITHUB_WEB_URL'),
  };
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Buffer.isBuffer(o)) {
    // Values only: a getter (a setting read when first needed) is not called here.
    for (const d of Object.values(Object.getOwnPropertyDescriptors(o))) if ('value' in d) deepFreeze(d.value);
    Object.freeze(o);
  }
  return o;
}
export { createLogger } from './logger';
export { keepMemoryReducerWorking } from './memory-reducer';
