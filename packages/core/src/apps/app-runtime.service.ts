import type { StatusDetail } from '@slipway/contracts';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import { isTransient, type Attempt, type OperationHandler } from '../operations/operation-runner';
import { LABELS, type AgentGateway, type AppRoute, type ContainerExitEvent } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { BuildsGateway } from './build.ports';
import type { AppPowerRequest, AppRepository, AppTeardownRequest, AppWithDeployment, DeploymentRecord, DeploymentRepository, EnvRepository } from './app.ports';
import { isDeploymentFinished } from './deployment-state';
import { appHost, type AppsDomain } from './dto';
import { MAX_LOG_LINE } from './log-lines';

/** Images of this many most recent deployments of an app stay on the server (API-DECISIONS). */
export const KEPT_IMAGES = 5;
/** Last log lines kept in a crashed app's statusDetail. */
const CRASH_TAIL_LINES = 20;
/** Exit codes of a container stopped by the platform (SIGTERM, then SIGKILL after the grace period). */
const STOPPED_BY_PLATFORM = new Set([137, 143]);

/** The tag the agent gives a deployment's image: the app's images are found, kept and pruned by it. */
export const deploymentImageRef = (appId: string, deploymentId: string): string => `slipway-app/${appId}:${deploymentId}`;

export interface AppRuntimeDeps {
  apps: AppRepository;
  deployments: DeploymentRepository;
  env: EnvRepository;
  secrets: SecretBox;
  agents: AgentGateway;
  /** Builds of uploaded .zip files on the agents (upload deployments). */
  builds?: BuildsGateway;
  nodes: NodeRepository;
  appsDomain: AppsDomain;
  clock: Clock;
  logger: Logger;
  /** How long a new container has to answer on its port. */
  readyTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace period of a replaced or stopped container. */
  stopGraceMs?: number;
}

/**
 * The worker's side of apps: runs a deployment (build phase = the image pull, deploy phase = the rollout on the
 * agent), start/stop/restart, teardown of a deleted app, crash detection from container exits, and the routes each
 * server should serve. Every move of a deployment is a conditional update (deployment-state.ts); a job that fails
 * for good leaves its deployment failed with a reason and the app's status coherent.
 */
export class AppRuntimeService {
  private readonly readyTimeoutMs: number;
  private readonly stopGraceMs: number;

  constructor(private readonly deps: AppRuntimeDeps) {
    this.readyTimeoutMs = deps.readyTimeoutMs ?? 60_000;
    this.stopGraceMs = deps.stopGraceMs ?? 10_000;
  }

  // ------------------------------------------------------------------------------------------ deployments

  async runDeployment(deploymentId: string, attempt: Attempt = { number: 1, final: true }): Promise<{ status: string }> {
    const { deployments, apps } = this.deps;
    const d = await deployments.get(deploymentId);
    if (!d) throw new AppError('not_found', `No deployment ${deploymentId}`);
    if (isDeploymentFinished(d.status)) return { status: d.status };
    const app = await apps.getById(d.appId);
    if (!app || app.deletedAt) return this.fail(d, null, 'The app was deleted');
    const log = new DeployLog(deployments, d.id, await deployments.lastSeq(d.id), this.deps.clock);
    try {
      const node = await apps.nodeOf(app.workspaceId);
      if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
      const target = { name: node.name, grpcAddress: node.grpcAddress };
      let imageId = d.imageId;
      if (d.status !== 'deploying') {
        const building = await deployments.move(d.id, ['queued', 'building'], 'building', { startedAt: d.startedAt ?? this.deps.clock() });
        if (!building) return { status: (await deployments.get(d.id))?.status ?? 'unknown' };
        await apps.setState({ workspaceId: app.workspaceId, appId: app.id }, { status: 'deploying' });
        // An upload deployment without an image builds its .zip; one with an image (a redeploy) reuses it, like a rollback.
        if (d.source === 'upload' && !d.imageId) {
          const built = await this.buildUpload(target, app.workspaceId, d, log);
          if (!built) {
            log.add('build', 'Build stopped: the deployment was cancelled');
            await log.flush();
            await this.settleApp(app);
            return { status: 'cancelled' };
          }
          imageId = built.imageId;
        } else {
          const rollback = d.source === 'rollback' || d.source === 'upload';
          const from = rollback ? (d.rollbackOfId ?? (await this.builtDeploymentOf(d))) : null;
          const source = from ? deploymentImageRef(app.id, from) : d.image;
          if (!source) throw new AppError('validation_failed', 'The deployment has no image');
          log.add('build', from ? `Using the image of deployment ${from} (no build)` : `Preparing image ${source}`);
          const prepared = await this.deps.agents.prepareImage(
            target,
            { operationId: `${d.id}-image`, workspaceId: app.workspaceId, appId: app.id, deploymentId: d.id, image: source, localOnly: rollback },
            (line) => log.add('build', line),
          );
          imageId = prepared.imageId;
        }
        await log.flush();
        const deploying = await deployments.move(d.id, ['building'], 'deploying', { imageId });
        if (!deploying) {
          log.add('build', 'Cancelled before the rollout');
          await log.flush();
          await this.settleApp(app);
          return { status: 'cancelled' };
        }
      }
      const prune = await this.imagesToPrune(app, d);
      const route = app.kind === 'web' && app.subdomain && d.port ? appHost(app.subdomain, this.deps.appsDomain) : '';
      log.add('deploy', `Starting a container (${d.cpuMillis} millis of vCPU, ${d.memoryMb} MB)`);
      const result = await this.deps.agents.rolloutApp(
        target,
        {
          operationId: `${d.id}-rollout`,
          workspaceId: app.workspaceId,
          appId: app.id,
          deploymentId: d.id,
          imageRef: deploymentImageRef(app.id, d.id),
          cpuMillis: d.cpuMillis,
          memoryMb: d.memoryMb,
          port: app.kind === 'web' ? (d.port ?? 0) : 0,
          env: await this.environment(app.id),
          healthPath: app.healthPath ?? '',
          routeHost: route,
          readyTimeoutMs: this.readyTimeoutMs,
          stopGraceMs: this.stopGraceMs,
          pruneImageRefs: prune.map((p) => deploymentImageRef(app.id, p.id)),
        },
        (line) => log.add('deploy', line),
      );
      const live = await deployments.goLive(d.id, { containerId: result.containerId, hostPort: result.hostPort || null, imageId: imageId ?? result.imageId }, this.deps.clock());
      if (prune.length) await deployments.markImagesGone(prune.map((p) => p.id));
      log.add('deploy', live ? 'Live' : 'The deployment was no longer deploying; nothing changed');
      await log.flush();
      return { status: live?.status ?? 'unknown' };
    } catch (e) {
      const reason = (e as Error).message;
      if (e instanceof AppError && e.code === 'rollout_failed') {
        for (const line of reason.split('\n')) log.add('deploy', line);
      } else {
        log.add(d.status === 'deploying' ? 'deploy' : 'build', `Try ${attempt.number} failed: ${reason}`);
      }
      await log.flush();
      if (!isTransient(e) || attempt.final) {
        await this.fail(d, app, reason.split('\n')[0] ?? reason);
        if (e instanceof AppError && e.code === 'rollout_failed') return { status: 'failed' };
      }
      throw e;
    }
  }

  /**
   * The build of an upload on its server, each line into the build log. The deployment's status is watched while it
   * runs: a cancel (queued/building → cancelled, by the API) stops the build on the agent. null when cancelled.
   */
  private async buildUpload(target: { name: string; grpcAddress: string }, workspaceId: string, d: DeploymentRecord, log: DeployLog): Promise<{ imageId: string } | null> {
    if (!this.deps.builds) throw new AppError('node_unavailable', 'This worker has no build service');
    const abort = new AbortController();
    const watch = setInterval(() => {
      void this.deps.deployments.get(d.id).then(
        (now) => {
          if (now?.status === 'cancelled') abort.abort();
        },
        () => undefined,
      );
    }, 1_000);
    try {
      const built = await this.deps.builds.buildZip(
        target,
        { operationId: `${d.id}-build`, workspaceId, appId: d.appId, deploymentId: d.id },
        (line) => log.add('build', line),
        abort.signal,
      );
      return { imageId: built.imageId };
    } catch (e) {
      if (abort.signal.aborted || (await this.deps.deployments.get(d.id))?.status === 'cancelled') return null;
      throw e;
    } finally {
      clearInterval(watch);
    }
  }

  /** Moves a deployment to failed (from wherever it is not finished) and the app back to a coherent status. */
  async fail(d: DeploymentRecord, app: AppWithDeployment | null, reason: string): Promise<{ status: string }> {
    await this.deps.deployments.move(d.id, ['queued', 'building', 'deploying'], 'failed', { failureReason: reason, finishedAt: this.deps.clock() });
    if (app) await this.settleApp(app);
    return { status: 'failed' };
  }

  /** The job failed for good (stalled, bad payload…): the deployment must not stay in a running state. */
  async failedForGood(deploymentId: string, reason: string): Promise<void> {
    const d = await this.deps.deployments.get(deploymentId);
    if (!d || isDeploymentFinished(d.status)) return;
    await this.fail(d, await this.deps.apps.getById(d.appId), reason);
  }

  private async settleApp(app: AppWithDeployment): Promise<void> {
    const fresh = await this.deps.apps.getById(app.id);
    if (!fresh || fresh.deletedAt) return;
    const live = fresh.currentDeployment?.status === 'live';
    const status = !live ? 'failed' : fresh.desiredState === 'stopped' ? 'stopped' : fresh.status === 'crashed' ? 'crashed' : 'running';
    await this.deps.apps.setState({ workspaceId: fresh.workspaceId, appId: fresh.id }, { status: fresh.status === 'idle' && !live ? 'failed' : status });
  }

  private async builtDeploymentOf(d: DeploymentRecord): Promise<string> {
    // Not the redeploy itself: it carries the same image id but has no tag of its own yet.
    const built = (await this.deps.deployments.withImages(d.appId)).find((x) => x.id !== d.id && x.imageId === d.imageId);
    if (!built) throw new AppError('image_unavailable', 'The image of that deployment is no longer on the server');
    return built.id;
  }

  /** Deployments whose images go: all but the live one and the newest others, KEPT_IMAGES in all with the new one. */
  private async imagesToPrune(app: AppWithDeployment, d: DeploymentRecord): Promise<DeploymentRecord[]> {
    const others = (await this.deps.deployments.withImages(app.id)).filter((x) => x.id !== d.id && x.id !== app.currentDeploymentId);
    const keep = KEPT_IMAGES - 1 - (app.currentDeploymentId ? 1 : 0);
    return others.slice(Math.max(0, keep));
  }

  private async environment(appId: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const v of await this.deps.env.list({ appId })) out[v.key] = v.secret ? this.deps.secrets.open(v.value) : v.value;
    return out;
  }

  // ------------------------------------------------------------------------------------ start, stop, restart

  /** The OperationRunner's handler of `app.power`: the app and the action are in the row's payload. */
  readonly power: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppPowerRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (!app || app.deletedAt || app.workspaceId !== op.workspaceId) return { skipped: 'app deleted' };
    const live = app.currentDeployment?.status === 'live' ? app.currentDeployment : null;
    if (!live?.containerId) return { skipped: 'no live deployment' };
    if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
    await this.deps.agents.appPower(
      { name: node.name, grpcAddress: node.grpcAddress },
      {
        operationId: op.id,
        workspaceId: app.workspaceId,
        appId: app.id,
        action: request.action,
        containerId: live.containerId,
        route: this.routeOf(app, live),
        stopGraceMs: this.stopGraceMs,
      },
    );
    const scope = { workspaceId: app.workspaceId, appId: app.id };
    if (request.action === 'stop') await this.deps.apps.setState(scope, { status: 'stopped', runningSince: null });
    else await this.deps.apps.setState(scope, { status: 'running', statusDetail: null, runningSince: this.deps.clock() });
    return { action: request.action };
  };

  // ------------------------------------------------------------------------------------------------ teardown

  /** The OperationRunner's handler of `app.teardown`: what a deleted app left on its server goes. */
  readonly teardown: OperationHandler = async (op, node) => {
    const request = op.payload as unknown as AppTeardownRequest;
    const app = await this.deps.apps.getById(request.appId);
    if (app && !app.deletedAt) throw new AppError('validation_failed', 'The app is not deleted');
    if (!node) return { containers: 0, images: 0 };
    return this.deps.agents.removeApp({ name: node.name, grpcAddress: node.grpcAddress }, { operationId: op.id, workspaceId: request.workspaceId, appId: request.appId });
  };

  // ------------------------------------------------------------------------------------------ exits, routes

  /**
   * A container exit the agent reported. An exit of the app's live container that the platform did not cause
   * (not a SIGTERM/SIGKILL stop, app meant to run) marks the app crashed, with the exit code, the restarts so far,
   * a message and the last log lines; Docker's restart policy brings the container back with backoff.
   */
  async containerExited(node: { name: string; grpcAddress: string }, e: ContainerExitEvent): Promise<void> {
    const appId = e.labels[LABELS.app];
    const deploymentId = e.labels[LABELS.deployment];
    if (!appId || !deploymentId) return;
    const app = await this.deps.apps.getById(appId);
    if (!app || app.deletedAt || app.currentDeploymentId !== deploymentId || app.desiredState !== 'running') return;
    const oom = e.action === 'oom';
    if (!oom && STOPPED_BY_PLATFORM.has(e.exitCode)) return;
    let tail = '';
    try {
      tail = await this.deps.agents.containerLogs(node, { containerId: e.containerId, tail: CRASH_TAIL_LINES });
    } catch (err) {
      this.deps.logger.warn({ appId, err: (err as Error).message }, 'could not read the last log lines of a crashed app');
    }
    const previous = app.status === 'crashed' ? app.statusDetail : null;
    const detail: StatusDetail = {
      exitCode: oom ? 137 : e.exitCode,
      restarts: previous ? previous.restarts + 1 : 0,
      message: oom ? 'The container ran out of memory and was killed' : `The container exited on its own with code ${e.exitCode}`,
      tail: tail.slice(-MAX_LOG_LINE),
      at: new Date(e.atMs).toISOString(),
    };
    await this.deps.apps.setState({ workspaceId: app.workspaceId, appId: app.id }, { status: 'crashed', statusDetail: detail, runningSince: null });
  }

  /** Every route a node should serve: web apps meant to run, with a live container. */
  async routesOf(nodeId: string): Promise<AppRoute[]> {
    const routes: AppRoute[] = [];
    for (const app of await this.deps.apps.listOnNode(nodeId)) {
      const live = app.currentDeployment?.status === 'live' ? app.currentDeployment : null;
      const route = live && app.desiredState === 'running' ? this.routeOf(app, live) : null;
      if (route) routes.push(route);
    }
    return routes;
  }

  async syncRoutes(node: { id: string; name: string; grpcAddress: string }): Promise<{ added: number; removed: number }> {
    return this.deps.agents.syncRoutes({ name: node.name, grpcAddress: node.grpcAddress }, await this.routesOf(node.id));
  }

  /** The `routes.sync` job: every online server gets its routes; one that does not answer is skipped. */
  async syncAllRoutes(): Promise<{ nodes: number; added: number; removed: number }> {
    let added = 0;
    let removed = 0;
    let nodes = 0;
    for (const node of (await this.deps.nodes.list()).filter((n) => n.status === 'online')) {
      try {
        const r = await this.syncRoutes(node);
        added += r.added;
        removed += r.removed;
        nodes++;
      } catch (e) {
        this.deps.logger.warn({ node: node.name, err: (e as Error).message }, 'routes not synced');
      }
    }
    return { nodes, added, removed };
  }

  private routeOf(app: AppWithDeployment, live: DeploymentRecord): AppRoute | null {
    if (app.kind !== 'web' || !app.subdomain || !live.hostPort) return null;
    return { appId: app.id, host: appHost(app.subdomain, this.deps.appsDomain), upstreamPort: live.hostPort };
  }
}

/**
 * The build/deploy log of one deployment as it happens: lines are numbered here (one writer per deployment) and
 * written in small batches at most 100 ms apart, so a client polling the log sees them within a second.
 */
class DeployLog {
  private buffer: { seq: number; phase: 'build' | 'deploy'; text: string; at: Date }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deployments: DeploymentRepository,
    private readonly deploymentId: string,
    private seq: number,
    private readonly clock: Clock,
  ) {}

  add(phase: 'build' | 'deploy', text: string): void {
    this.buffer.push({ seq: ++this.seq, phase, text: text.slice(0, MAX_LOG_LINE), at: this.clock() });
    this.timer ??= setTimeout(() => void this.flush(), 100);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const lines = this.buffer;
    this.buffer = [];
    if (lines.length) this.writing = this.writing.then(() => this.deployments.appendLogs(this.deploymentId, lines)).catch(() => undefined);
    return this.writing;
  }
}
