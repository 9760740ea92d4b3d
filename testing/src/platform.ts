// The whole platform for end-to-end tests and the deploy benchmark: the API (as main.ts builds it, with a real
// BullMQ queue and agent pool), the workers in-process, one real agent enrolled with a scratch CA, Docker and the
// Caddy of this machine. Requests to apps go through the ingress on 127.0.0.1 with a Host header: the agent's own HAProxy
// in front of Caddy (the default, decision 0040; testing/src/haproxy.ts), or Caddy's with SLIPWAY_TEST_INGRESS=caddy.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AgentOptions, BuildSettings, MetricsSettings, NetworkSettings } from '@slipway/agent';
import { agentGateways, settingsDeps, type ContractViolation, type Services } from '@slipway/api';
import { createLogger } from '@slipway/config';
import { appHost, LABELS, type BackupSettings, type Clock } from '@slipway/core';
import { createDb, createSqlPool, type Db } from '@slipway/db';
import type { CertificateAuthority } from '@slipway/pki';
import { AgentPool } from '@slipway/proto';
import { BullJobQueue, createRedisConnection } from '@slipway/queue';
import { startWorkerRuntime, type WorkerRuntime } from '@slipway/worker';
import Docker from 'dockerode';
import { openTestCa, startTestAgent, type TestAgent } from './agent';
import { removeLabelled } from './engine';
import { ApiClient } from './api-client';
import { TEST_SESSION_KEY } from './api';
import { createTestDatabase, type TestDatabase } from './database';
import { TEST_DATABASE_IMAGES } from './databases';
import { getWithHost, type HostResponse } from './http';
import { ensureAppImages, APP_IMAGES } from './images';
import { assertNoViolations, serveApi } from './serve';
import { TEST_SERVICES } from './services';
import { dropRedisPrefix, insertNode, testConfig, testEnv, uniquePrefix } from './worker';

export interface TestPlatform {
  base: string;
  /** The platform's scratch CA (a client certificate for the agent: benchmarks watch its events). */
  ca: CertificateAuthority;
  /** The origin cookie writes must come from (see the `publicOrigin` option). */
  publicOrigin: string;
  db: Db;
  docker: Docker;
  agent: TestAgent;
  worker: WorkerRuntime;
  services: Services;
  images: typeof APP_IMAGES;
  violations: ContractViolation[];
  appsDomain: string;
  client(): ApiClient;
  /** GET through the ingress (127.0.0.1:<the agent's ingress port>) with the app's host. */
  viaIngress(url: string, path?: string): Promise<HostResponse>;
  /** Whether the ingress holds the app's route now (Caddy's `app-<id>` route, or the app's host in HAProxy's map). */
  routed(appId: string): Promise<boolean>;
  /** Takes the app's route out of the ingress behind the agent's back. */
  dropRoute(appId: string): Promise<void>;
  /** What the proxy holding the app routes loses when it restarts without them: Caddy its config, HAProxy its map. */
  dropAllRoutes(): Promise<void>;
  close(): Promise<void>;
}

export async function startTestPlatform(
  options: {
    name?: string;
    readyTimeoutMs?: number;
    stopGraceMs?: number;
    /** false: a new release passes its whole settle window before it takes the route (the behaviour before decision 0038). */
    warmPrevious?: boolean;
    /** Build settings of the agent (upload builds): limits, extra CA bundle. */
    build?: Partial<BuildSettings>;
    /** The API's .zip upload limit (default 200 MB). */
    maxZipUploadBytes?: number;
    /** Build and deploy log kept per deployment (default: the setting's 10 MB). */
    maxLogBytes?: number;
    /** The agent's workspace network range (default: the documented one). */
    networks?: NetworkSettings;
    /** The agent's platform id (default: derived from this platform's own scratch CA, so no two test platforms share one). */
    platformId?: string;
    /** More settings of the control plane (e.g. the GitHub App's, from @slipway/testing/github). */
    env?: Record<string, string>;
    /** One logger for the API, the workers and the agent (default: silent, or SLIPWAY_TEST_LOG_LEVEL). */
    logger?: ReturnType<typeof createLogger>;
    /** The agent's custom-domain settings (resolvers, ACME issuer): see @slipway/testing/acme. */
    domains?: AgentOptions['domains'];
    /** The agent's metrics sampling (default: 10 s counters, 5 min folders). */
    metrics?: Partial<MetricsSettings>;
    /** Managed databases' images (default: the local stand-ins of deploy/images, and the official `mongo`). */
    databaseImages?: Partial<Record<'postgres' | 'mysql' | 'redis' | 'mongodb', string>>;
    /** Database backups (issue 13): the clock and settings of the backup jobs (tests drive the nightly schedule). */
    backups?: { clock?: Clock; settings?: BackupSettings };
    /** The agent's removals at once when workspaces or apps are deleted (default 8; 1: serial, the benchmark's baseline). */
    removalConcurrency?: number;
    /** 'self': the API's own address is its public origin, so a browser on the console it serves may write (issue 28). */
    publicOrigin?: 'self';
    /** HAProxy in front of the agent (default: SLIPWAY_TEST_INGRESS=haproxy); a benchmark compares both in one run. */
    haproxy?: boolean;
  } = {},
): Promise<TestPlatform> {
  const docker = new Docker({ socketPath: TEST_SERVICES.dockerSocket });
  const images = await ensureAppImages(docker);
  const database: TestDatabase = await createTestDatabase();
  const prefix = uniquePrefix(options.name ?? 'platform');
  const { ca, dir: caDir } = await openTestCa();
  const agent = await startTestAgent(ca, {
    nodeName: `node-${randomBytes(3).toString('hex')}`,
    build: options.build,
    networks: options.networks,
    platformId: options.platformId,
    domains: options.domains,
    metrics: options.metrics,
    removalConcurrency: options.removalConcurrency,
    ...(options.haproxy === undefined ? {} : { haproxy: options.haproxy }),
    databaseImages: { ...TEST_DATABASE_IMAGES, ...options.databaseImages },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const db = createDb(database.url);
  // Room for every test's workspaces (each counts at least its plan's first app): placement by free room is the fleet
  // suite's to test (testing/src/fleet), not the single-server tests'.
  await insertNode(db, agent, 'online', { cpuMillis: 64_000, memoryMb: 262_144 });
  const config = testConfig(testEnv({ databaseUrl: database.url, redisUrl: TEST_SERVICES.redisUrl, prefix, dataDir: caDir, extra: options.env }));
  const logger = options.logger ?? createLogger('platform-test', (process.env.SLIPWAY_TEST_LOG_LEVEL ?? 'silent') as 'silent');
  const worker = await startWorkerRuntime(config, logger, {
    schedule: false,
    apps: {
      readyTimeoutMs: options.readyTimeoutMs ?? 10_000,
      stopGraceMs: options.stopGraceMs ?? 5_000,
      ...(options.maxLogBytes ? { maxLogBytes: options.maxLogBytes } : {}),
      ...(options.warmPrevious !== undefined ? { warmPrevious: options.warmPrevious } : {}),
    },
    backups: options.backups,
  });
  const sql = createSqlPool(database.url);
  const redis = createRedisConnection(TEST_SERVICES.redisUrl);
  const jobs = new BullJobQueue({ connection: redis, prefix });
  const agents = new AgentPool(ca.client);
  const { services, base, publicOrigin, violations, close: stopServer } = await serveApi(
    { db, sql, redis, jobs, logger, ...settingsDeps(config), sessionKey: TEST_SESSION_KEY, ...agentGateways(agents), maxZipUploadBytes: options.maxZipUploadBytes ?? config.limits.uploadZipBytes },
    'platform-test',
    [],
    { publicOrigin: options.publicOrigin },
  );
  return {
    base,
    ca,
    publicOrigin,
    db,
    docker,
    agent,
    worker,
    services,
    images,
    violations,
    appsDomain: config.apps.domain,
    client: () => new ApiClient(base, { origin: publicOrigin }),
    viaIngress: (url, p = '/') => getWithHost(`http://127.0.0.1:${agent.ingressPort}${p}`, new URL(url).host),
    routed: (appId) => appRouted(db, agent, config.apps.domain, appId),
    dropRoute: async (appId) => {
      if (!agent.haproxy) {
        await fetch(`${TEST_SERVICES.caddyAdminUrl}/id/app-${appId}`, { method: 'DELETE' });
        return;
      }
      const host = await hostOf(db, config.apps.domain, appId);
      if (host) await agent.haproxy.command(`del map ${path.join(agent.haproxy.dir, 'ingress.map')} ${host}`);
    },
    async dropAllRoutes() {
      if (agent.haproxy) {
        await agent.haproxy.command(`clear map ${path.join(agent.haproxy.dir, 'ingress.map')}`);
        return;
      }
      // Caddy's bootstrap config again, without the app routes (of every agent on the shared Caddy).
      const caddy = (await (await fetch(`${TEST_SERVICES.caddyAdminUrl}/config/`)).json()) as { apps: { http: { servers: { ingress: { routes: { '@id'?: string }[] } } } } };
      caddy.apps.http.servers.ingress.routes = caddy.apps.http.servers.ingress.routes.filter((r) => r['@id'] === 'slipway-fallback');
      await fetch(`${TEST_SERVICES.caddyAdminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(caddy) });
    },
    async close() {
      await stopServer();
      // The workers first: they would take the removals below for drift and recreate the containers (and the network
      // would stay behind, in use).
      await worker.close();
      // Everything this platform left on the server goes (its own label only: other runs on the engine keep theirs):
      // containers, networks, app image tags, routes.
      const apps = (await db.app.findMany({ select: { id: true } })).map((a) => a.id);
      await removeLabelled(docker, `${LABELS.platform}=${agent.agent.platformId}`);
      for (const appId of apps) {
        for (const img of await docker.listImages({ filters: { reference: [`slipway-app/${appId}:*`] } })) {
          for (const tag of img.RepoTags ?? []) await docker.getImage(tag).remove().catch(() => undefined);
        }
        await fetch(`${TEST_SERVICES.caddyAdminUrl}/id/app-${appId}`, { method: 'DELETE' }).catch(() => undefined);
      }
      // Custom domains: their routes, TLS policies and redirect leave the shared Caddy.
      await agent.agent.domains.sync([]).catch(() => undefined);
      agents.close();
      await jobs.close();
      await agent.stop();
      redis.disconnect();
      await Promise.allSettled([db.$disconnect(), sql.end()]);
      await database.drop();
      await dropRedisPrefix(TEST_SERVICES.redisUrl, prefix);
      await rm(caDir, { recursive: true, force: true });
      assertNoViolations(violations);
    },
  };
}

async function hostOf(db: Db, appsDomain: string, appId: string): Promise<string | null> {
  const app = await db.app.findUnique({ where: { id: appId }, select: { subdomain: true } });
  return app?.subdomain ? appHost(app.subdomain, { domain: appsDomain, scheme: 'http' }).toLowerCase() : null;
}

/** Whether the agent's ingress holds the app's route: Caddy's `app-<id>`, or the app's host in its HAProxy's map. */
async function appRouted(db: Db, agent: TestAgent, appsDomain: string, appId: string): Promise<boolean> {
  if (!agent.haproxy) {
    const res = await fetch(`${TEST_SERVICES.caddyAdminUrl}/id/app-${appId}`);
    await res.arrayBuffer();
    return res.status === 200;
  }
  const host = await hostOf(db, appsDomain, appId);
  if (!host) return false;
  return /found=yes/.test(await agent.haproxy.command(`get map ${path.join(agent.haproxy.dir, 'ingress.map')} ${host}`));
}

/**
 * What a workspace still holds on the test platform's server: containers and networks (its label), project folder
 * mounts, image tags and Caddy routes of its apps. All zero once a teardown removed everything (issue 34).
 */
export async function workspaceLeftovers(p: TestPlatform, workspaceId: string, appIds: string[]): Promise<{ containers: number; networks: number; mounts: number; images: number; routes: number }> {
  const label = { label: [`${LABELS.workspace}=${workspaceId}`] };
  const containers = (await p.docker.listContainers({ all: true, filters: label })).length;
  const networks = (await p.docker.listNetworks({ filters: label })).length;
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
  const mounts = appIds.filter((id) => mountinfo.includes(path.join(p.agent.dataDir, 'volumes', id))).length;
  // Tags, not images: apps deployed from the same image share one image id under a tag each.
  const tags = appIds.length ? (await p.docker.listImages({ filters: { reference: appIds.map((id) => `slipway-app/${id}:*`) } })).flatMap((i) => i.RepoTags ?? []) : [];
  const images = appIds.filter((id) => tags.some((t) => t.startsWith(`slipway-app/${id}:`))).length;
  // One at a time: HAProxy's admin socket takes 10 connections at once (`stats maxconn`), and a full backlog refuses
  // the next connect with EAGAIN.
  let routes = 0;
  for (const id of appIds) if (await p.routed(id)) routes++;
  return { containers, networks, mounts, images, routes };
}
