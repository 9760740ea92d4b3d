import { DEFAULT_REMOVAL_CONCURRENCY, RemovalPool } from './containers/removal-pool';
import { ImageGate } from './builds/image-gate';
import { BuildCaches } from './builds/build-cache';
import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import { DATABASE_ENGINE_FACTS, DATABASE_ENGINES, type DatabaseEngine } from '@slipway/contracts';
import { LABELS, type Logger } from '@slipway/core';
import { agentServerCredentials, bindServer, createAgentServer, loadBackupsProto, loadBuildsProto, loadDatabasesProto, loadDomainsProto, loadFilesProto, loadMetricsProto, loadMovesProto, type AgentHandlers, type MetricsHandlers } from '@slipway/proto';
import { appsHandlers } from './apps/apps.handlers';
import { AppsRuntime } from './apps/apps.runtime';
import { Builder, type BuilderOptions } from './builds/builder';
import { buildsHandlers } from './builds/builds.handlers';
import { DEFAULT_RUNTIMES } from './builds/detect';
import { DEFAULT_BASE_IMAGES } from './builds/dockerfiles';
import { ContainerEventHub } from './containers/container-events';
import { Containers } from './containers/containers';
import { containersHandlers } from './containers/containers.handlers';
import { DockerRuntime } from './containers/docker.runtime';
import { WorkspaceNetworks, type NetworkSettings } from './containers/networks';
import { filesHandlers } from './files/files.handlers';
import { movesHandlers } from './moves/moves.handlers';
import { ProjectFiles } from './files/files.service';
import { CaddyIngress } from './ingress/caddy.ingress';
import { CustomDomains, DEFAULT_DOMAIN_SETTINGS, type CustomDomainSettings } from './ingress/custom-domains';
import { domainsHandlers } from './domains/domains.handlers';
import { ingressHandlers } from './ingress/ingress.handlers';
import { HaproxyMap } from './ingress/haproxy';
import { MeshListener } from './ingress/mesh';
import { AGENT_VERSION, capacity, type OfferedCapacity } from './node/node-info';
import { healthHandlers, nodeHandlers } from './node/node.handlers';
import { platformIdOf, readEnrollment, type Enrollment } from './node/tls-store';
import { controlPlaneOnly } from './rpc/authorize';
import { workspacesHandlers } from './workspaces/workspaces.handlers';
import { WorkspacesRuntime } from './workspaces/workspaces.runtime';
import { serve } from './rpc/handlers';
import { OperationJournal } from './rpc/journal';
import { backupsHandlers } from './databases/backups/backups.handlers';
import { BackupsRuntime } from './databases/backups/backups.runtime';
import { openDatabaseTls } from './databases/database-tls';
import { databasesHandlers } from './databases/databases.handlers';
import { DatabasesRuntime } from './databases/databases.runtime';
import { DiskGuard, type DiskReserve } from './storage/disk-guard';
import { LoopExt4Storage } from './storage/loop-ext4.storage';
import { storageHandlers } from './storage/storage.handlers';
import { DEFAULT_METRICS, MetricsCollector, type MetricsSettings } from './metrics/collector';
import { metricsHandlers } from './metrics/metrics.handlers';
import { MinuteStore } from './metrics/minute-store';

export interface AgentOptions {
  listen: string;
  advertiseAddress: string;
  dataDir: string;
  nodeName: string;
  publicIpv4: string[];
  dockerSocket: string;
  maxUploadBytes: number;
  /** Largest file the Files service writes (config.limits.uploadFileBytes); default 100 MB. */
  maxFileBytes?: number;
  logger: Logger;
  /** Caddy's admin API (config.agent.caddyAdminUrl); default http://127.0.0.1:2019. */
  caddyAdminUrl?: string;
  /** HAProxy's folder (config.agent.haproxyDir): app routes in its map in front of Caddy (decision 0040); absent: Caddy routes. */
  haproxyDir?: string;
  /** How long a new app container must keep running and answering before its route moves (config.agent.readySettleMs); default 3 s. */
  readySettleMs?: number;
  /** Builds of uploaded .zip files (limits, base images, extra CA bundle); defaults in DEFAULT_BUILD_OPTIONS. */
  build?: Partial<BuildSettings>;
  /** Size of an app container's tmpfs /tmp (config.agent.appTmpMb); default 64. */
  appTmpMb?: number;
  /** Removals (containers, image tags, folders) run at once when workspaces or apps are deleted (config.agent.removalConcurrency); default 8. */
  removalConcurrency?: number;
  /** Several servers (issue 31): this server's mesh listener port (SLIPWAY_MESH_PORT); absent or 0: off. */
  mesh?: { port: number };
  /** What the operator offers of this server to placement (SLIPWAY_AGENT_CPUS, SLIPWAY_AGENT_MEMORY_MB); default the whole machine. */
  capacity?: OfferedCapacity;
  /** Free disk kept for running apps (config.agent.diskReserve); default 10 % or 5 GB, the smaller. */
  diskReserve?: DiskReserve;
  /** This platform's identity on the engine (config SLIPWAY_PLATFORM_ID); empty or unset: derived from the enrollment's CA. */
  platformId?: string;
  /** Where workspace networks take their subnets; default DEFAULT_NETWORKS. */
  networks?: NetworkSettings;
  /** Custom domains: the DNS check's resolvers, the ACME issuer, the HTTPS port (config.agent.domains); default DEFAULT_DOMAIN_SETTINGS. */
  domains?: Partial<CustomDomainSettings>;
  /** Metrics sampling (config SLIPWAY_METRICS_INTERVAL_MS, SLIPWAY_METRICS_FOLDER_INTERVAL_MS); default DEFAULT_METRICS. */
  metrics?: Partial<MetricsSettings>;
  /** Managed databases' images per engine (config SLIPWAY_IMAGE_POSTGRES, _MYSQL, _REDIS, _MONGODB); default the official ones. */
  databaseImages?: Partial<Record<DatabaseEngine, string>>;
}

/** The documented defaults of SLIPWAY_NETWORK_RANGE and SLIPWAY_NETWORK_SUBNET_PREFIX. */
export const DEFAULT_NETWORKS: NetworkSettings = { range: '100.64.0.0/10', subnetPrefix: 24 };

export type BuildSettings = Pick<BuilderOptions, 'images' | 'runtimes' | 'extraCaBundle' | 'cpus' | 'memoryMb' | 'timeoutMs' | 'concurrency' | 'extractLimits' | 'diskMb' | 'engine' | 'dockerCli' | 'buildKitCgroup'>;

export const DEFAULT_BUILD_OPTIONS: BuildSettings = {
  images: DEFAULT_BASE_IMAGES,
  runtimes: DEFAULT_RUNTIMES,
  extraCaBundle: null,
  cpus: 1,
  memoryMb: 2048,
  timeoutMs: 15 * 60_000,
  concurrency: 1,
  diskMb: 5120,
  buildKitCgroup: {},
};

export const DEFAULT_DISK_RESERVE: DiskReserve = { percent: 10, mb: 5120 };

export interface RunningAgent {
  port: number;
  /** The `slipway.platform` label of every object this agent makes. */
  platformId: string;
  enrollment: Enrollment;
  journal: OperationJournal;
  server: grpc.Server;
  /** The project folders (tests unmount them at the end) and the free-disk guard (tests move its reserve). */
  storage: LoopExt4Storage;
  disk: DiskGuard;
  /** Custom domains in Caddy (tests empty it at the end). */
  domains: CustomDomains;
  /** The metrics sampler (tests call `sampleNow`; the benchmark times its cycles). */
  metrics: MetricsCollector;
  /** Managed databases (tests reach its public listeners). */
  databases: DatabasesRuntime;
  /** Database backups (issue 13). */
  backups: BackupsRuntime;
  /** Stops taking calls, lets running ones finish (up to graceMs), then closes. */
  close(graceMs?: number): Promise<void>;
}

export class NotEnrolledError extends Error {}

/** Starts the gRPC server (mutual TLS) on the listen address with the enrollment under dataDir. */
export async function startAgent(o: AgentOptions): Promise<RunningAgent> {
  const enrollment = await readEnrollment(o.dataDir);
  if (!enrollment) throw new NotEnrolledError(`No enrollment under ${o.dataDir}/tls: run \`slipway-agent join --url URL --token TOKEN\` first`);
  const journal = await new OperationJournal(path.join(o.dataDir, 'operations')).open();
  const platformId = o.platformId || platformIdOf(enrollment);
  const docker = new DockerRuntime(o.dockerSocket, platformId);
  // Every project folder not mounted (after a reboot) is mounted again in the background, the folders of the apps
  // that run first (issue 34: 2,000 folders served within a minute); a call on a folder not mounted yet mounts it out
  // of turn. A container the engine started on a folder's bare mount point is restarted once the folder is there.
  const storage = new LoopExt4Storage({ volumesDir: path.join(o.dataDir, 'volumes'), storageDir: path.join(o.dataDir, 'storage'), logger: o.logger });
  const remounted: { appId: string; atMs: number }[] = [];
  let onRemount = (appId: string, atMs: number) => void remounted.push({ appId, atMs });
  await storage.begin({ first: await appsByState(docker, o.logger), onMounted: (appId, atMs) => onRemount(appId, atMs) });
  const disk = new DiskGuard(storage, enrollment.nodeName, o.diskReserve ?? DEFAULT_DISK_RESERVE);
  const networks = new WorkspaceNetworks(docker, o.networks ?? DEFAULT_NETWORKS, o.logger);
  const haproxy = o.haproxyDir ? new HaproxyMap(o.haproxyDir) : null;
  const ingress = await new CaddyIngress(o.caddyAdminUrl ?? 'http://127.0.0.1:2019', path.join(o.dataDir, 'routes.json'), o.logger, { haproxy }).load();
  // Several servers (issue 31): this server's apps are reachable through every other server's ingress by their mesh
  // listener, and this server's ingress routes theirs. Off without a mesh port (a lone server, the test agents).
  const mesh = o.mesh?.port ? new MeshListener(o.caddyAdminUrl ?? 'http://127.0.0.1:2019', { port: o.mesh.port, certPem: enrollment.certPem, keyPem: enrollment.keyPem, ...(haproxy ? { ownSocket: haproxy.ownSocket } : {}) }, o.logger) : null;
  if (mesh) {
    ingress.trustMesh(enrollment.caPem);
    await mesh.ensure().catch((e: Error) => o.logger.warn({ err: e.message }, 'mesh listener not in place yet (its watchdog retries)'));
    mesh.watch();
    // The mesh serves this server's own app routes: a change there is copied at once (the watchdog catches the rest).
    ingress.onChange(() => mesh.ensure());
  }
  ingress.watch();
  // Custom domains follow their app's route (CaddyIngress tells them of every change); a watchdog of their own.
  const customDomains = await new CustomDomains(
    o.caddyAdminUrl ?? 'http://127.0.0.1:2019',
    path.join(o.dataDir, 'domains.json'),
    ingress,
    { ...DEFAULT_DOMAIN_SETTINGS, ...o.domains },
    o.logger,
    mesh,
  ).load();
  customDomains.watch();
  const containers = new Containers(docker, networks, o.logger);
  // One subscription to the engine's events for every watcher, opened again after an engine restart.
  const events = new ContainerEventHub(docker, o.logger);
  events.start();
  // Builds and image removal share one discipline (builds/image-gate.ts): removal waits while builds run.
  const imageGate = new ImageGate();
  // One bound for every removal (workspaces and apps deleted): parallel, never unbounded (issue 34).
  const removals = new RemovalPool(o.removalConcurrency ?? DEFAULT_REMOVAL_CONCURRENCY);
  // Apps' BuildKit caches: bounded by each app's disk after its builds, removed with the app (builds/build-cache.ts).
  const buildCaches = new BuildCaches(o.dockerSocket, o.logger);
  const apps = await new AppsRuntime(docker, containers, ingress, storage, disk, o.dataDir, o.logger, { tmpMb: o.appTmpMb ?? 64, readySettleMs: o.readySettleMs ?? 3_000 }, imageGate, removals, buildCaches).load();
  onRemount = (appId, atMs) => void apps.folderMounted(appId, atMs).catch((e: Error) => o.logger.warn({ appId, err: e.message }, 'container not restarted on its remounted folder'));
  for (const m of remounted.splice(0)) onRemount(m.appId, m.atMs);
  // Managed databases (databases.proto): public listeners reopened before serving; a workspace's removal erases its databases.
  const databases = new DatabasesRuntime(
    docker,
    containers,
    {
      dataDir: o.dataDir,
      images: { ...officialImages(), ...Object.fromEntries(Object.entries(o.databaseImages ?? {}).filter(([, v]) => v)) },
      // Never the enrollment key (a database superuser can read the key its engine serves): a CA of the databases' own.
      tls: await openDatabaseTls(o.dataDir, [...o.publicIpv4, o.advertiseAddress.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''), enrollment.nodeName]),
    },
    o.logger,
  );
  await databases.start();
  const workspaces = new WorkspacesRuntime(docker, networks, apps, ingress, o.logger, (workspaceId) => databases.removeWorkspace(workspaceId), imageGate, removals);
  const nodeInfo = async () => ({
    name: enrollment.nodeName,
    version: AGENT_VERSION,
    ...capacity(o.capacity),
    publicIpv4: o.publicIpv4,
    grpcAddress: o.advertiseAddress,
    disk: await disk.report(),
  });
  let serving = true;
  const server = createAgentServer(
    // The Agent service: one table, each feature owning its rows.
    serve<AgentHandlers>(o.logger, {
      ...nodeHandlers({ journal, nodeInfo }),
      ...containersHandlers({ journal, docker, containers, events, decorate: (list) => apps.decorate(list), settling: (id, appId) => apps.settling(id, appId) }),
      ...appsHandlers({ journal, apps }),
      ...ingressHandlers({ ingress }),
      ...storageHandlers({ storage }),
      ...workspacesHandlers({ journal, workspaces }),
    }),
    // NOT_SERVING while the Docker engine is away (restarting): the control plane's /readyz shows it.
    healthHandlers(() => serving && events.engineReachable, o.logger),
    // Only the control plane's certificate may call, whatever the service: one check before every handler.
    { interceptors: [controlPlaneOnly] },
  );
  // Project folders: a service of its own (files.proto) on the same server.
  const files = new ProjectFiles({ volumesDir: path.join(o.dataDir, 'volumes'), maxFileBytes: o.maxFileBytes ?? 100_000_000, logger: o.logger, ready: (appId) => storage.ready(appId) });
  server.addService(loadFilesProto().slipway.agent.v1.Files.service, filesHandlers({ files, disk, logger: o.logger }));
  // Uploads built on this server: a service of its own too (build.proto).
  const builder = new Builder({ ...DEFAULT_BUILD_OPTIONS, ...o.build, docker, dockerSocket: o.dockerSocket, buildsDir: path.join(o.dataDir, 'builds'), gate: imageGate, logger: o.logger, caches: buildCaches, appDiskMb: async (appId) => (await storage.usage(appId))?.limitMb ?? null });
  server.addService(
    loadBuildsProto().slipway.agent.v1.Builds.service,
    buildsHandlers({ builder, journal, disk, uploadsDir: path.join(o.dataDir, 'uploads'), maxZipBytes: o.maxUploadBytes, logger: o.logger }),
  );
  // Custom domains: DNS checks and their routes, a service of its own too (domains.proto).
  server.addService(loadDomainsProto().slipway.agent.v1.Domains.service, domainsHandlers({ domains: customDomains, logger: o.logger }));
  // Per-app metrics: sampled from the kernel's counters, minutes kept on disk until the control plane has them.
  const minuteStore = await new MinuteStore(path.join(o.dataDir, 'metrics')).open();
  const metrics = new MetricsCollector({
    docker,
    storage,
    volumesDir: path.join(o.dataDir, 'volumes'),
    store: minuteStore,
    logger: o.logger,
    settings: { ...DEFAULT_METRICS, ...o.metrics },
    events,
  });
  await metrics.start();
  server.addService(loadMetricsProto().slipway.agent.v1.Metrics.service, serve<MetricsHandlers>(o.logger, metricsHandlers({ store: minuteStore, collector: metrics, storage })));
  // Managed databases: a service of its own too (databases.proto).
  server.addService(loadDatabasesProto().slipway.agent.v1.Databases.service, databasesHandlers({ journal, databases, logger: o.logger }));
  // Database backups (issue 13): a service of its own (backups.proto); files in backups/<databaseId>/.
  const backups = new BackupsRuntime(docker, containers, { dataDir: o.dataDir, imageOf: (engine) => databases.images().find((e) => e.engine === engine)?.image ?? '' }, o.logger);
  await backups.start();
  server.addService(loadBackupsProto().slipway.agent.v1.Backups.service, backupsHandlers({ backups, logger: o.logger }));
  // Moving workspaces between servers (issue 32): images and project folders out and in (moves.proto).
  server.addService(loadMovesProto().slipway.agent.v1.Moves.service, movesHandlers({ docker, apps, databases, disk, dataDir: o.dataDir, logger: o.logger }));
  const port = await bindServer(server, o.listen, agentServerCredentials(enrollment));
  o.logger.info({ listen: o.listen, port, node: enrollment.nodeName, platformId }, 'agent listening (mutual TLS)');
  return {
    port,
    platformId,
    enrollment,
    journal,
    server,
    storage,
    disk,
    domains: customDomains,
    metrics,
    databases,
    backups,
    close: async (graceMs = 10_000) => {
      // The running cycle finishes (its state is on disk) before anything else stops: a restart continues from it.
      await metrics.stop();
      await storage.allMounted();
      return new Promise<void>((resolve) => {
        serving = false;
        // The databases' public ports close (and their connections end) before the agent says it has stopped.
        const listeners = databases.stop();
        ingress.stop();
        mesh?.stop();
        customDomains.stop();
        events.stop();
        const done = () => void listeners.then(resolve, resolve);
        const timer = setTimeout(() => {
          server.forceShutdown();
          done();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          done();
        });
      });
    },
  };
}

/**
 * The apps with a container on this engine, those running (or restarting) first: whose project folders an agent start
 * mounts first. Empty when the engine does not answer within 5 s (then the folders are mounted in any order).
 */
async function appsByState(docker: DockerRuntime, logger: Logger): Promise<string[]> {
  try {
    const list = await Promise.race([
      docker.containersWith([LABELS.app]),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5_000).unref()),
    ]);
    const mine = list.filter((c) => docker.isMine(c.Labels));
    const live = (c: { State: string }) => c.State === 'running' || c.State === 'restarting';
    return [...new Set([...mine.filter(live), ...mine.filter((c) => !live(c))].map((c) => c.Labels[LABELS.app]!).filter(Boolean))];
  } catch (e) {
    logger.warn({ err: (e as Error).message }, 'the Docker engine did not list the apps: project folders are mounted in any order');
    return [];
  }
}

/** The official image of every engine, what runs when no SLIPWAY_IMAGE_* setting names another. */
function officialImages(): Record<DatabaseEngine, string> {
  return Object.fromEntries(DATABASE_ENGINES.map((e) => [e, DATABASE_ENGINE_FACTS[e].officialImage])) as Record<DatabaseEngine, string>;
}
