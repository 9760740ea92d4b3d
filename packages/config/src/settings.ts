/** Which process reads a setting. The agent never sees database, queue or session secrets. */
export type Role = 'control' | 'agent' | 'cli';

export interface Setting {
  env: string;
  type: 'string' | 'integer' | 'boolean' | 'list';
  default?: unknown;
  roles: Role[];
  /** A secret has no default in production and refuses placeholders there. */
  secret?: boolean;
  schema?: object;
  description: string;
}

const C: Role[] = ['control'];
const CC: Role[] = ['control', 'cli'];
const A: Role[] = ['agent'];
const ALL: Role[] = ['control', 'agent', 'cli'];
const imageName = { type: 'string', minLength: 1, pattern: '^[a-z0-9][a-z0-9._/:@-]*$' };
// A Node.js or Python image may name the version it is for: `slipway/node:{major}`, `python:{version}-slim`.
const imageTemplate = { type: 'string', minLength: 1, pattern: '^[a-z0-9{][a-z0-9._/:@{}-]*$' };
const hostPort = { type: 'string', pattern: '^[^\\s:]+:\\d{1,5}$' };

// The README's settings table is generated from this list (deploy/settings-table.ts): keep descriptions short.
export const SETTINGS: Setting[] = [
  { env: 'SLIPWAY_LOG_LEVEL', type: 'string', default: 'info', roles: ALL, schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }, description: 'pino log level' },
  { env: 'DATABASE_URL', type: 'string', roles: CC, schema: { type: 'string', pattern: '^postgres(ql)?://' }, description: 'PostgreSQL connection URL of the control plane' },
  { env: 'REDIS_URL', type: 'string', default: 'redis://127.0.0.1:6379', roles: CC, schema: { type: 'string', pattern: '^rediss?://' }, description: 'Redis for BullMQ queues and throttling' },
  { env: 'SLIPWAY_REDIS_PREFIX', type: 'string', default: 'slipway', roles: CC, schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' }, description: 'key prefix of every queue and counter in Redis' },
  { env: 'SLIPWAY_API_HOST', type: 'string', default: '127.0.0.1', roles: C, schema: { type: 'string', minLength: 1 }, description: 'address the API listens on' },
  { env: 'SLIPWAY_API_PORT', type: 'integer', default: 7070, roles: C, schema: { type: 'integer', minimum: 0, maximum: 65535 }, description: 'port the API listens on (0 = any free port)' },
  { env: 'SLIPWAY_BOOT_ID', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^[A-Za-z0-9-]{8,64}$' }] }, description: 'id of this process start, in /healthz and /readyz: the supervisor sets a new one per start and writes it beside its pid file, so scripts know the process answering is the one they started (default: a random one)' },
  { env: 'SLIPWAY_PUBLIC_URL', type: 'string', default: 'http://localhost:7070', roles: C, schema: { type: 'string', format: 'uri', pattern: '^https?://' }, description: 'URL users reach the API at; its origin is the only one accepted for cookie-authenticated writes, https makes cookies Secure' },
  { env: 'SLIPWAY_SESSION_SECRET', type: 'string', default: 'dev-session-secret-not-for-production-use', secret: true, roles: C, schema: { type: 'string', minLength: 32 }, description: 'secret keying session and token hashes (at least 32 characters)' },
  { env: 'SLIPWAY_ENCRYPTION_KEY', type: 'string', default: '0000000000000000000000000000000000000000000000000000000000000000', secret: true, roles: CC, description: 'AES-256-GCM key for secrets at rest: 64 hex characters or 32 bytes base64' },
  { env: 'SLIPWAY_APPS_DOMAIN', type: 'string', default: 'apps.localhost', roles: ['control', 'agent'], schema: { type: 'string', pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' }, description: 'web apps get <subdomain>.<apps domain>' },
  { env: 'SLIPWAY_APPS_SCHEME', type: 'string', default: 'http', roles: C, schema: { enum: ['http', 'https'] }, description: 'scheme of app URLs' },
  { env: 'SLIPWAY_DATA_DIR', type: 'string', default: '/var/lib/slipway/control', roles: CC, schema: { type: 'string', pattern: '^/' }, description: "control plane's files (the agents' certificate authority)" },
  { env: 'SLIPWAY_OPERATOR_SOCKET', type: 'string', default: '', roles: C, schema: { anyOf: [{ enum: ['', 'off'] }, { type: 'string', pattern: '^/', maxLength: 107 }] }, description: "Unix socket of the operator API (servers, drains, moves; mode 0600, never TCP): empty: `operator.sock` in SLIPWAY_DATA_DIR; `off`: not served" },
  { env: 'SLIPWAY_WORKER_CONCURRENCY', type: 'integer', default: 16, roles: C, schema: { type: 'integer', minimum: 1, maximum: 512 }, description: 'jobs each queue works on at once per worker process' },
  { env: 'SLIPWAY_WORKER_LOCK_MS', type: 'integer', default: 10_000, roles: C, schema: { type: 'integer', minimum: 2000 }, description: "a job's lock, renewed every half of it; the job of a worker that died runs again within about 1.5 × this (stalled check every half lock)" },
  { env: 'SLIPWAY_NODE_HEALTH_INTERVAL_MS', type: 'integer', default: 15_000, roles: C, schema: { type: 'integer', minimum: 1000 }, description: 'how often every node is health-checked (online/offline)' },
  { env: 'SLIPWAY_RECONCILE_INTERVAL_MS', type: 'integer', default: 30_000, roles: C, schema: { type: 'integer', minimum: 1000 }, description: 'how often PostgreSQL and the servers are compared and drift repaired (apps with their containers, routes, orphans); an exit an agent reports compares its app at once' },
  { env: 'SLIPWAY_DEPLOY_LOG_MAX_BYTES', type: 'integer', default: 10_000_000, roles: C, schema: { type: 'integer', minimum: 10_000 }, description: "build and deploy log kept per deployment; the rest is dropped with a last line saying how much" },
  { env: 'SLIPWAY_LOG_KEEP_DEPLOYMENTS', type: 'integer', default: 20, roles: CC, schema: { type: 'integer', minimum: 1 }, description: "deployment logs kept per app (the newest); older ones are pruned" },
  { env: 'SLIPWAY_LOG_KEEP_DAYS', type: 'integer', default: 30, roles: CC, schema: { type: 'integer', minimum: 1 }, description: 'deployment logs older than this are pruned (the current deployment of an app keeps its log)' },
  { env: 'SLIPWAY_LOG_PRUNE_INTERVAL_MS', type: 'integer', default: 3_600_000, roles: C, schema: { type: 'integer', minimum: 1000 }, description: 'how often deployment logs are pruned' },
  // Database backups (issue 13).
  { env: 'SLIPWAY_BACKUP_WINDOW_START_HOUR', type: 'integer', default: 1, roles: C, schema: { type: 'integer', minimum: 0, maximum: 23 }, description: 'nightly database backups start in this server-local hour (window spread over the databases)' },
  { env: 'SLIPWAY_BACKUP_WINDOW_END_HOUR', type: 'integer', default: 5, roles: C, schema: { type: 'integer', minimum: 0, maximum: 24 }, description: 'nightly database backups end before this server-local hour (at or before the start: past midnight)' },
  { env: 'SLIPWAY_BACKUP_TIMEZONE', type: 'string', default: '', roles: C, schema: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_+/-]*$' }, description: "IANA time zone of the backup window's hours (empty: the server's own)" },
  { env: 'SLIPWAY_BACKUP_KEEP_SCHEDULED_DAYS', type: 'integer', default: 7, roles: C, schema: { type: 'integer', minimum: 1 }, description: 'nightly database backups are kept this many days' },
  { env: 'SLIPWAY_BACKUP_KEEP_MANUAL_DAYS', type: 'integer', default: 30, roles: C, schema: { type: 'integer', minimum: 1 }, description: 'manual database backups are kept this many days' },
  { env: 'SLIPWAY_BACKUP_KEEP_PRE_RESTORE_DAYS', type: 'integer', default: 7, roles: C, schema: { type: 'integer', minimum: 1 }, description: 'backups made before a restore into the same database are kept this many days' },
  { env: 'SLIPWAY_BACKUP_LOCAL_COPIES', type: 'integer', default: 0, roles: C, schema: { type: 'integer', minimum: 0, maximum: 1000 }, description: "per database, local copies kept of the backups that went to a backup destination (the newest N; 0: none, the dump streams straight to the destination)" },
  { env: 'SLIPWAY_AGENT_ADDRESSES', type: 'list', default: [], roles: C, schema: { type: 'array', items: hostPort }, description: 'extra agent gRPC addresses to health-check before any node has enrolled' },
  { env: 'SLIPWAY_AGENT_LISTEN', type: 'string', default: '127.0.0.1:7443', roles: A, schema: hostPort, description: "agent's gRPC listen address" },
  { env: 'SLIPWAY_AGENT_ADVERTISE_ADDRESS', type: 'string', default: '', roles: A, schema: { anyOf: [{ const: '' }, hostPort] }, description: 'host:port the control plane dials (default: the listen address; 0.0.0.0 becomes the first public IPv4)' },
  { env: 'SLIPWAY_AGENT_DATA_DIR', type: 'string', default: '/var/lib/slipway/agent', roles: A, schema: { type: 'string', pattern: '^/' }, description: 'volumes, databases, backups, uploads, tls of this server' },
  { env: 'SLIPWAY_AGENT_NODE_NAME', type: 'string', default: 'local', roles: A, schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }, description: 'name this server enrolls under' },
  { env: 'SLIPWAY_AGENT_PUBLIC_IPV4', type: 'list', default: ['127.0.0.1'], roles: A, schema: { type: 'array', items: { type: 'string', format: 'ipv4' } }, description: 'public IPv4 addresses of this server (A records of custom domains)' },
  { env: 'SLIPWAY_AGENT_MEMORY_MB', type: 'integer', default: 0, roles: A, schema: { type: 'integer', minimum: 0 }, description: "memory this server offers to workspaces, in MB (placement's capacity); 0: all the machine's" },
  { env: 'SLIPWAY_AGENT_CPUS', type: 'integer', default: 0, roles: A, schema: { type: 'integer', minimum: 0, maximum: 1024 }, description: "vCPUs this server offers to workspaces (placement's capacity); 0: every core" },
  { env: 'SLIPWAY_MESH_PORT', type: 'integer', default: 7444, roles: ['control', 'agent'], schema: { type: 'integer', minimum: 0, maximum: 65535 }, description: "port of every server's mesh listener (TLS, its agent certificate): another server's ingress proxies this server's apps to it, so an app's URL works through any server; 0: off" },
  { env: 'SLIPWAY_HAPROXY_DIR', type: 'string', default: '', roles: A, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^/[^\\s;]*$' }] }, description: "HAProxy's folder (admin.sock, own.sock, ingress.map; deploy/haproxy/haproxy.cfg): app routes go into HAProxy's map in front of Caddy, each change in constant time (decision 0040); empty: app routes are Caddy config (SLIPWAY_INGRESS=haproxy of deploy/setup.sh sets it)" },
  { env: 'SLIPWAY_CADDY_ADMIN_URL', type: 'string', default: 'http://127.0.0.1:2019', roles: A, schema: { type: 'string', pattern: '^https?://' }, description: "Caddy's admin API" },
  { env: 'DOCKER_SOCKET', type: 'string', default: '/var/run/docker.sock', roles: A, schema: { type: 'string', pattern: '^/' }, description: 'Docker engine socket' },
  { env: 'SLIPWAY_READY_SETTLE_MS', type: 'integer', default: 3_000, roles: A, schema: { type: 'integer', minimum: 0, maximum: 600_000 }, description: 'a new app container must keep running and answering this long, with no restart, before its previous container is retired (a first release: before its deployment is live; it serves meanwhile)' },
  { env: 'SLIPWAY_BUILD_CA_BUNDLE', type: 'string', default: '', roles: A, description: 'extra CA bundle trusted during builds (corporate proxies)' },
  { env: 'SLIPWAY_BUILD_CPUS', type: 'integer', default: 1, roles: A, schema: { type: 'integer', minimum: 1, maximum: 64 }, description: 'vCPUs one build of an upload may use (with BuildKit: the build slots together may use SLIPWAY_BUILD_CONCURRENCY times this)' },
  { env: 'SLIPWAY_BUILD_MEMORY_MB', type: 'integer', default: 2048, roles: A, schema: { type: 'integer', minimum: 256 }, description: 'memory one build may use (MB; with BuildKit: the build slots together may use SLIPWAY_BUILD_CONCURRENCY times this)' },
  { env: 'SLIPWAY_BUILD_TIMEOUT_S', type: 'integer', default: 900, roles: A, schema: { type: 'integer', minimum: 10 }, description: 'a build running longer is stopped and the deployment fails' },
  { env: 'SLIPWAY_BUILD_DISK_MB', type: 'integer', default: 5120, roles: A, schema: { type: 'integer', minimum: 256 }, description: 'disk one build may use for its context, layers and resulting image (MB); past it the build fails (classic engine only: BuildKit steps are not measured)' },
  { env: 'SLIPWAY_APP_TMP_MB', type: 'integer', default: 64, roles: A, schema: { type: 'integer', minimum: 1, maximum: 65536 }, description: "size of an app container's tmpfs /tmp (its root file system is read-only; counts in its memory)" },
  { env: 'SLIPWAY_DISK_RESERVE_PERCENT', type: 'integer', default: 10, roles: A, schema: { type: 'integer', minimum: 0, maximum: 90 }, description: 'free disk kept for running apps: below the smaller of this share and SLIPWAY_DISK_RESERVE_MB, new builds, deployments and uploads are refused' },
  { env: 'SLIPWAY_DISK_RESERVE_MB', type: 'integer', default: 5120, roles: A, schema: { type: 'integer', minimum: 0 }, description: 'free disk kept for running apps, in MB (see SLIPWAY_DISK_RESERVE_PERCENT)' },
  { env: 'SLIPWAY_BUILD_ENGINE', type: 'string', default: 'buildkit', roles: A, schema: { type: 'string', enum: ['classic', 'buildkit'] }, description: "how uploads are built: buildkit (the docker CLI with BuildKit: per-app caches kept between builds, the app's variables as build secrets, memory and CPU bounded for all build slots together; falls back to classic, saying why, when the CLI cannot) or classic (the Engine API's builder, in each build's memory/CPU/disk limits, no caches beyond layers)" },
  { env: 'SLIPWAY_BUILD_DOCKER_CLI', type: 'string', default: '/usr/bin/docker', roles: A, description: 'the docker CLI BuildKit builds run (a 20.10 client: a newer one without buildx refuses DOCKER_BUILDKIT=1)' },
  { env: 'SLIPWAY_REMOVAL_CONCURRENCY', type: 'integer', default: 8, roles: A, schema: { type: 'integer', minimum: 1, maximum: 64 }, description: "removals (containers, images, project folders) this server runs at once when workspaces or apps are deleted; 1: one after another" },
  { env: 'SLIPWAY_BUILD_CONCURRENCY', type: 'integer', default: 1, roles: A, schema: { type: 'integer', minimum: 1, maximum: 16 }, description: 'builds running at once on this server; others wait for a slot' },
  { env: 'SLIPWAY_PLATFORM_ID', type: 'string', default: '', roles: A, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{2,62}$' }] }, description: "this platform's identity, labelled on every Docker object; orphan removal touches only its own (default: derived from the control plane's CA)" },
  { env: 'SLIPWAY_NETWORK_RANGE', type: 'string', default: '100.64.0.0/10', roles: A, schema: { type: 'string', pattern: '^\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}$' }, description: 'IPv4 range the workspace networks take their subnets from (default: shared address space, outside the usual LAN ranges)' },
  { env: 'SLIPWAY_NETWORK_SUBNET_PREFIX', type: 'integer', default: 24, roles: A, schema: { type: 'integer', minimum: 16, maximum: 29 }, description: "prefix length of each workspace's subnet (/24: 253 containers; 16,384 workspaces in the default range)" },
  { env: 'SLIPWAY_IMAGE_NODE', type: 'string', default: 'slipway/node:{major}', roles: ALL, schema: imageTemplate, description: 'Node.js runtime image, {major} the app\'s Node.js major (official: node:{major}-bookworm-slim)' },
  { env: 'SLIPWAY_IMAGE_NODE_BUILD', type: 'string', default: 'slipway/node-build:{major}', roles: A, schema: imageTemplate, description: 'image Node.js apps are built in: with a compiler and python3 for native modules (official: node:{major}-bookworm)' },
  { env: 'SLIPWAY_NODE_VERSIONS', type: 'list', default: ['20', '22', '24', '26'], roles: A, schema: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[1-9][0-9]?$' } }, description: 'Node.js majors apps may ask for (an image of each must exist)' },
  { env: 'SLIPWAY_NODE_DEFAULT', type: 'integer', default: 24, roles: A, schema: { type: 'integer', minimum: 1 }, description: 'Node.js major of apps that name none (one of SLIPWAY_NODE_VERSIONS)' },
  { env: 'SLIPWAY_IMAGE_PYTHON', type: 'string', default: 'slipway/python:{version}', roles: ALL, schema: imageTemplate, description: 'Python runtime image, {version} the app\'s Python version (official: python:{version}-slim)' },
  { env: 'SLIPWAY_PYTHON_VERSIONS', type: 'list', default: ['3.11'], roles: A, schema: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^3\\.[0-9]{1,2}$' } }, description: 'Python versions apps may ask for; the first is the default' },
  { env: 'SLIPWAY_IMAGE_STATIC', type: 'string', default: 'slipway/static:2', roles: ALL, schema: imageName, description: 'static site server image (Caddy\'s file server)' },
  { env: 'SLIPWAY_IMAGE_POSTGRES', type: 'string', default: 'slipway/postgres:15', roles: ALL, schema: imageName, description: 'PostgreSQL engine image' },
  { env: 'SLIPWAY_IMAGE_MYSQL', type: 'string', default: 'slipway/mariadb:10.11', roles: ALL, schema: imageName, description: 'MySQL engine image' },
  { env: 'SLIPWAY_IMAGE_REDIS', type: 'string', default: 'slipway/redis:7.0', roles: ALL, schema: imageName, description: 'Redis engine image' },
  { env: 'SLIPWAY_IMAGE_MONGODB', type: 'string', default: 'mongo:7', roles: ALL, schema: imageName, description: 'MongoDB engine image (official only)' },
  { env: 'SLIPWAY_UPLOAD_ZIP_MAX_BYTES', type: 'integer', default: 200_000_000, roles: ['control', 'agent'], schema: { type: 'integer', minimum: 1 }, description: '.zip upload limit' },
  { env: 'SLIPWAY_UPLOAD_FILE_MAX_BYTES', type: 'integer', default: 100_000_000, roles: ['control', 'agent'], schema: { type: 'integer', minimum: 1 }, description: 'raw file upload limit' },
  // GitHub as a source (issue 16): one GitHub App per platform; without SLIPWAY_GITHUB_APP_ID GitHub operations answer 503.
  { env: 'SLIPWAY_GITHUB_APP_ID', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' }] }, description: 'the GitHub App\'s id (numeric) or client id; empty: GitHub is not configured' },
  { env: 'SLIPWAY_GITHUB_PRIVATE_KEY_FILE', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^/' }] }, description: 'PEM file of the GitHub App\'s private key (signs the app JWT, RS256)' },
  { env: 'SLIPWAY_GITHUB_WEBHOOK_SECRET', type: 'string', default: '', roles: C, description: 'the GitHub App\'s webhook secret (X-Hub-Signature-256); required with SLIPWAY_GITHUB_APP_ID' },
  { env: 'SLIPWAY_GITHUB_APP_SLUG', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,99}$' }] }, description: 'the GitHub App\'s slug (its install page is <web URL>/apps/<slug>/installations/new)' },
  { env: 'SLIPWAY_GITHUB_API_URL', type: 'string', default: 'https://api.github.com', roles: C, schema: { type: 'string', pattern: '^https?://[^\\s]+[^/\\s]$' }, description: 'GitHub\'s REST API (GitHub Enterprise Server: https://<host>/api/v3)' },
  { env: 'SLIPWAY_GITHUB_WEB_URL', type: 'string', default: 'https://github.com', roles: C, schema: { type: 'string', pattern: '^https?://[^\\s]+[^/\\s]$' }, description: 'GitHub\'s web address, for the install page and commit links (GitHub Enterprise Server: https://<host>)' },
  // Custom domains (issue 14).
  { env: 'SLIPWAY_DNS_RESOLVERS', type: 'list', default: [], roles: A, schema: { type: 'array', items: { type: 'string', pattern: '^[0-9a-fA-F.:\\[\\]]+$' } }, description: "DNS servers the custom-domain check asks (ip or ip:port); empty: the system's" },
  { env: 'SLIPWAY_ACME_DIRECTORY', type: 'string', default: 'https://acme-v02.api.letsencrypt.org/directory', roles: A, schema: { type: 'string', pattern: '^(https://\\S+|internal)$' }, description: "ACME directory certificates of custom domains come from; `internal`: Caddy's own CA" },
  { env: 'SLIPWAY_ACME_EMAIL', type: 'string', default: '', roles: A, schema: { type: 'string' }, description: 'contact address given to the ACME CA (empty: none)' },
  { env: 'SLIPWAY_ACME_CA_ROOT', type: 'string', default: '', roles: A, schema: { type: 'string', pattern: '^(/.*)?$' }, description: 'PEM file of an extra root Caddy trusts for the ACME directory (a private CA)' },
  { env: 'SLIPWAY_HTTPS_PORT', type: 'integer', default: 443, roles: A, schema: { type: 'integer', minimum: 1, maximum: 65535 }, description: "Caddy's HTTPS listener for custom domains" },
  // Issue 15: per-app metrics.
  { env: 'SLIPWAY_METRICS_INTERVAL_MS', type: 'integer', default: 10_000, roles: A, schema: { type: 'integer', minimum: 500 }, description: "how often the agent reads every managed container's CPU, memory, network and disk counters" },
  { env: 'SLIPWAY_METRICS_FOLDER_INTERVAL_MS', type: 'integer', default: 300_000, roles: A, schema: { type: 'integer', minimum: 1000 }, description: "how often the agent measures every app's project folder" },
  { env: 'SLIPWAY_METRICS_COLLECT_INTERVAL_MS', type: 'integer', default: 60_000, roles: C, schema: { type: 'integer', minimum: 1000 }, description: "how often each online server's closed metric minutes are pulled into PostgreSQL (metrics.collect)" },
  { env: 'SLIPWAY_METRICS_LISTEN', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, hostPort] }, description: 'host:port serving Prometheus text at /metrics on a listener of its own (keep it private); empty: not served there' },
  { env: 'SLIPWAY_METRICS_TOKEN', type: 'string', default: '', roles: C, schema: { anyOf: [{ const: '' }, { type: 'string', minLength: 16 }] }, description: "bearer token that opens /metrics (Prometheus text) on the API's own port; empty: /metrics on the API answers 404" },
];
