// A fleet of servers on this one machine for tests and benchmarks (issue 31): the control plane in this process (the
// API as main.ts composes it, the workers with their schedules), and N servers, each in its own network namespace
// with an address from 198.18.0.0/15, its own Docker engine and Caddy (deploy/lib/fleet.sh), and its own agent
// process that joins with a one-time token over HTTP exactly as `slipway-agent join` does on a real server.
// What this proves and what only a second machine would: docs/decisions/0031-fleet-on-one-machine.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { agentGateways, settingsDeps, type ContractViolation, type Services } from '@slipway/api';
import { createLogger } from '@slipway/config';
import { createDb, createSqlPool, type Db } from '@slipway/db';
import { AgentPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { startWorkerRuntime, type WorkerRuntime } from '@slipway/worker';
import Docker from 'dockerode';
import { startTestAcme, type TestAcme } from '../acme';
import { adminCli, runProcess } from '../admin-cli';
import { ensureTestImage, openTestCa } from '../agent';
import { ApiClient } from '../api-client';
import { TEST_SESSION_KEY } from '../api';
import { createTestDatabase, type TestDatabase } from '../database';
import { getWithHost, type HostResponse } from '../http';
import { APP_IMAGES, ensureAppImages } from '../images';
import { assertNoViolations, serveApi, TEST_PUBLIC_ORIGIN } from '../serve';
import { haproxyCommand, TEST_INGRESS, TEST_INGRESS_HAPROXY } from '../haproxy';
import { TEST_SERVICES } from '../services';
import { dropRedisPrefix, testConfig, testEnv, uniquePrefix, waitFor } from '../worker';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
const FLEET_SH = path.join(REPO_ROOT, 'deploy/fleet.sh');
const AGENT_BIN = path.join(REPO_ROOT, 'apps/agent/bin/slipway-agent');
/** The host's address on the fleet's bridge: the control plane, as the servers reach it. */
export const FLEET_HOST_ADDRESS = '198.18.0.1';
const FLEET_ROOT = process.env.SLIPWAY_FLEET_ROOT ?? '/var/lib/slipway-fleet';
const FLEET_RUN = process.env.SLIPWAY_FLEET_RUN ?? '/run/slipway-fleet';

export interface FleetServerOptions {
  /** Memory this server offers to placement (SLIPWAY_AGENT_MEMORY_MB); default 4096. */
  memoryMb?: number;
  /** vCPUs it offers (SLIPWAY_AGENT_CPUS); default 2. */
  cpus?: number;
}

export interface FleetServer {
  index: number;
  /** The node's name (fleet-<index>). */
  name: string;
  /** Its address on the fleet's bridge (198.18.0.<10 + index>). */
  address: string;
  /** Its own engine (the host's engine never sees its containers). */
  docker: Docker;
  nodeId: string;
  /** GET through this server's Caddy (port 80 of its address) with the app's host. */
  viaIngress(url: string, path?: string): Promise<HostResponse>;
  /** A command inside this server's network namespace (argv, no shell), e.g. curl to its own loopback. */
  exec(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Takes its link down (veth on the host's side): the control plane and the other servers lose it, it keeps running. */
  cut(): Promise<void>;
  mend(): Promise<void>;
  /**
   * Whether this server's ingress holds the app as one of its own (ingress-neutral): Caddy's `app-<id>` route, or with
   * HAProxy in front the app's host in its map. Other servers' apps (`remote-<id>`, Caddy) do not count.
   */
  routes(app: { id: string; url: string }): Promise<boolean>;
  stopAgent(): Promise<void>;
  startAgent(): Promise<void>;
}

export interface TestFleet {
  base: string;
  db: Db;
  services: Services;
  worker: WorkerRuntime;
  servers: FleetServer[];
  images: typeof APP_IMAGES;
  appsDomain: string;
  /** With `acme: true`: Pebble and its dnsmasq on the bridge address, every agent's ACME CA and DNS resolver. */
  acme: TestAcme | null;
  violations: ContractViolation[];
  client(): ApiClient;
  /** `slipway-admin ARGS…` against this control plane (its database and Redis prefix). */
  admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Another server joins, as a real one does: server-up, one-time token, `slipway-agent join`, `run`; resolves once it is online. */
  addServer(options?: FleetServerOptions): Promise<FleetServer>;
  close(): Promise<void>;
}

/** Runs argv (no shell) and resolves with its exit code and output; rejects only when it cannot start. */
/** A process's exit code and output (kept whatever the code): `runProcess` of `@slipway/testing/admin-cli`. */
export const run = runProcess;

async function fleetSh(...args: string[]): Promise<void> {
  const r = await run(['bash', FLEET_SH, ...args], { ...process.env, SLIPWAY_INGRESS: TEST_INGRESS });
  if (r.code !== 0) throw new Error(`deploy/fleet.sh ${args.join(' ')} failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
}

/** Every server of a fleet, its engine, Caddy, agent, namespace and data removed (safe after a crashed run). */
export const fleetDown = (): Promise<void> => fleetSh('down');

/**
 * Starts the control plane and `servers` servers (a number, or each one's capacity). Servers left by a crashed run
 * are removed first. `images`: more images each server's engine gets (the busybox test image and the small app
 * images always).
 */
export async function startTestFleet(
  options: {
    servers: number | FleetServerOptions[];
    name?: string;
    images?: string[];
    /** More settings of the control plane (e.g. SLIPWAY_RECONCILE_INTERVAL_MS). */
    env?: Record<string, string>;
    /** More settings of every agent. */
    agentEnv?: Record<string, string>;
    /**
     * Custom domains for real: a Pebble ACME CA and a dnsmasq on the bridge address (where the servers reach them),
     * Pebble's HTTP-01 validations connecting to port 80 of whichever server the name's A record says.
     */
    acme?: boolean;
  } = { servers: 3 },
): Promise<TestFleet> {
  if (process.getuid?.() !== 0) throw new Error('a fleet needs root (network namespaces, Docker engines)');
  const wanted = typeof options.servers === 'number' ? Array.from({ length: options.servers }, () => ({})) : options.servers;
  await fleetDown();
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  await ensureTestImage(docker);
  const images = await ensureAppImages(docker);
  const loaded = ['slipway-test/busybox:1', images.v1, images.v2, ...(options.images ?? [])];

  const database: TestDatabase = await createTestDatabase();
  const prefix = uniquePrefix(options.name ?? 'fleet');
  const { ca, dir: caDir } = await openTestCa();
  const controlEnv = testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir, extra: options.env });
  const config = testConfig(controlEnv);
  const logger = createLogger('fleet-test', (process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent') as 'silent');
  const db = createDb(database.url);
  const worker = await startWorkerRuntime(config, logger, { apps: { readyTimeoutMs: 10_000, stopGraceMs: 3_000 } });
  const sql = createSqlPool(database.url);
  const redis = createRedisConnection(TEST_SERVICES.redisUrl);
  const jobs = new BullJobQueue({ connection: redis, prefix });
  const agents = new AgentPool(ca.client);
  // The bridge first: the API listens on its address, where the servers reach the host.
  await fleetSh('net-up');
  const acme = options.acme ? await startTestAcme({ host: FLEET_HOST_ADDRESS, httpPort: 80 }) : null;
  const acmeEnv: Record<string, string> = acme
    ? { SLIPWAY_ACME_DIRECTORY: acme.directory, SLIPWAY_ACME_CA_ROOT: acme.apiRootFile, SLIPWAY_DNS_RESOLVERS: acme.dns.server }
    : {};
  const served = await serveApi(
    { db, sql, redis, jobs, logger, ...settingsDeps(config), sessionKey: TEST_SESSION_KEY, ...agentGateways(agents), maxZipUploadBytes: config.limits.uploadZipBytes },
    'fleet-test',
    [],
    { host: FLEET_HOST_ADDRESS },
  );
  const { services, base, violations } = served;
  const children = new Map<number, ChildProcess>();

  const agentEnv = (index: number, address: string, o: FleetServerOptions): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SLIPWAY_NODE_DIR: process.env.SLIPWAY_NODE_DIR,
    SLIPWAY_MODE: 'test',
    SLIPWAY_LOG_LEVEL: process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'info',
    SLIPWAY_AGENT_LISTEN: `${address}:7443`,
    SLIPWAY_AGENT_DATA_DIR: path.join(FLEET_ROOT, String(index), 'agent'),
    SLIPWAY_AGENT_NODE_NAME: `fleet-${index}`,
    SLIPWAY_AGENT_PUBLIC_IPV4: address,
    SLIPWAY_AGENT_MEMORY_MB: String(o.memoryMb ?? 4096),
    SLIPWAY_AGENT_CPUS: String(o.cpus ?? 2),
    DOCKER_SOCKET: path.join(FLEET_RUN, String(index), 'docker.sock'),
    SLIPWAY_CADDY_ADMIN_URL: 'http://127.0.0.1:2019',
    // HAProxy (the default; not with SLIPWAY_TEST_INGRESS=caddy): each server's HAProxy in front of its Caddy (deploy/lib/fleet.sh), its map the agent's.
    ...(TEST_INGRESS_HAPROXY ? { SLIPWAY_HAPROXY_DIR: path.join(FLEET_ROOT, String(index), 'haproxy') } : {}),
    SLIPWAY_READY_SETTLE_MS: '500',
    SLIPWAY_DISK_RESERVE_MB: '0',
    SLIPWAY_DISK_RESERVE_PERCENT: '0',
    ...acmeEnv,
    ...options.agentEnv,
  });

  const servers: FleetServer[] = [];
  const addServer = async (o: FleetServerOptions = {}): Promise<FleetServer> => {
    const index = servers.length + 1;
    const name = `fleet-${index}`;
    const address = `198.18.0.${10 + index}`;
    const ns = `/run/netns/slw-f${index}`;
    await fleetSh('server-up', String(index));
    await fleetSh('load-images', String(index), ...loaded);
    const env = agentEnv(index, address, o);
    const { token } = await services.enrollment.createToken();
    const joined = await run(['nsenter', `--net=${ns}`, AGENT_BIN, 'join', '--url', `http://${FLEET_HOST_ADDRESS}:${new URL(base).port}`, '--token', token], env);
    if (joined.code !== 0) throw new Error(`${name} could not join (${joined.code}): ${joined.stderr.trim() || joined.stdout.trim()}`);
    const runDir = path.join(FLEET_RUN, String(index));
    const startAgent = async () => {
      await mkdir(runDir, { recursive: true });
      const log = createWriteStream(path.join(runDir, 'agent.log'), { flags: 'a' });
      const child = spawn('nsenter', [`--net=${ns}`, AGENT_BIN, 'run'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pipe(log);
      child.stderr.pipe(log);
      children.set(index, child);
      // deploy/fleet.sh down stops it by this file should this process die first.
      await writeFile(path.join(runDir, 'agent.pid'), String(child.pid));
    };
    const stopAgent = async () => {
      const child = children.get(index);
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      children.delete(index);
    };
    await startAgent();
    const node = await waitFor(
      async () => db.node.findFirst({ where: { name, status: 'online' }, select: { id: true } }),
      60_000,
      `${name} to be online (its log: ${runDir}/agent.log)`,
    );
    const link = `slwf${index}h`;
    const server: FleetServer = {
      index,
      name,
      address,
      docker: new Docker({ socketPath: env.DOCKER_SOCKET! }),
      nodeId: node.id,
      viaIngress: (url, p = '/') => getWithHost(`http://${address}${p}`, new URL(url).host),
      exec: (argv) => run(['nsenter', `--net=${ns}`, ...argv]),
      cut: async () => void (await run(['ip', 'link', 'set', link, 'down'])),
      routes: async (app) => {
        const caddy = await run(['nsenter', `--net=${ns}`, 'curl', '-fsS', 'http://127.0.0.1:2019/config/apps/http/servers/ingress/routes']);
        if (caddy.code !== 0) throw new Error(`${name}'s Caddy did not answer: ${caddy.stderr.trim()}`);
        if (caddy.stdout.includes(`"app-${app.id}"`)) return true;
        if (!TEST_INGRESS_HAPROXY) return false;
        const dir = path.join(FLEET_ROOT, String(index), 'haproxy');
        const host = new URL(app.url).hostname.toLowerCase();
        return /found=yes/.test(await haproxyCommand(path.join(dir, 'admin.sock'), `get map ${path.join(dir, 'ingress.map')} ${host}`));
      },
      mend: async () => void (await run(['ip', 'link', 'set', link, 'up'])),
      stopAgent,
      startAgent,
    };
    servers.push(server);
    return server;
  };

  try {
    for (const o of wanted) await addServer(o);
  } catch (e) {
    for (const s of servers) await s.stopAgent().catch(() => undefined);
    await served.close().catch(() => undefined);
    await worker.close().catch(() => undefined);
    await acme?.close().catch(() => undefined);
    await fleetDown().catch(() => undefined);
    throw e;
  }

  return {
    base,
    db,
    services,
    worker,
    servers,
    images,
    appsDomain: config.apps.domain,
    acme,
    violations,
    client: () => new ApiClient(base, { origin: TEST_PUBLIC_ORIGIN }),
    admin: adminCli(controlEnv).admin,
    addServer,
    async close() {
      await served.close();
      await worker.close();
      for (const s of servers) await s.stopAgent().catch(() => undefined);
      agents.close();
      await jobs.close();
      redis.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end()]);
      await acme?.close();
      await fleetDown();
      await database.drop();
      await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
      await rm(caDir, { recursive: true, force: true });
      assertNoViolations(violations);
    },
  };
}

/** What `httpsVia` got: the answer and the certificate it was served with. */
export interface ServedOverHttps {
  status: number;
  body: string;
  serial: string;
  issuer: string;
}

/** GET https://<hostname><path> through `address`:443 (SNI and Host the hostname), trusting only `ca` (a custom domain's). */
export function httpsVia(address: string, hostname: string, ca: string, path = '/'): Promise<ServedOverHttps> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: address, port: 443, path, servername: hostname, headers: { Host: hostname }, ca, agent: false, timeout: 5_000 }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), serial: cert.serialNumber, issuer: String(cert.issuer?.CN ?? '') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${hostname} through ${address} within 5 s`)));
    req.on('error', reject);
    req.end();
  });
}
