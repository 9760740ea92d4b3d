import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import { isTransient, type Attempt } from '../operations/operation-runner';
import type { AgentGateway } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { AppConvergeService } from './app-converge.service';
import { journalIdOf } from '../convergence/journal-id';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { AppJobStore, AppWithDeployment, DeploymentChanges, DeploymentJobStore, DeploymentRecord, DeploymentStatus, EnvRepository } from './app.ports';
import { DeployLog } from './deploy-log';
import { deploymentSources, isDeploymentFinished, isInUse } from './deployment-state';
import { failureReasonOf, INTERRUPTED_REASON } from './failure-reason';
import { appHost, type AppsDomain } from './dto';
import { openEnvironment } from './environment';
import type { ImageSources } from './image-sources';

/** Images of this many most recent deployments of an app stay on the server (API-DECISIONS). */
export const KEPT_IMAGES = 5;

export interface DeploymentRunnerDeps {
  apps: AppJobStore;
  deployments: DeploymentJobStore;
  /** The app's variables, read in the app's own workspace. */
  env: EnvRepository;
  secrets: SecretBox;
  agents: AgentGateway;
  /** One strategy per image source: the build phase. */
  sources: ImageSources;
  appsDomain: AppsDomain;
  clock: Clock;
  logger: Logger;
  /** How long a new container has to answer on its port. */
  readyTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace period of a replaced container. */
  stopGraceMs?: number;
  /** Build and deploy log a deployment keeps (config.logs.maxBytesPerDeployment); default 10 MB. */
  maxLogBytes?: number;
  /** The rollout, going live and what follows hold the app's lock: power jobs and repairs wait for it. */
  locks: ResourceLocks;
  /** Once live, the app's containers follow its desired state as it is then (a stop accepted meanwhile wins). */
  converge: AppConvergeService;
  /** Told when a deployment starts building and when it is finished (GitHub commit statuses, issue 16); best effort. */
  observer?: DeploymentObserver;
  /**
   * A new release takes the route as soon as it answers, the previous one kept warm behind it for the agent's settle
   * window, and a rollback to an image that passed a window has none (decision 0038); default true. false: the whole
   * window first, then the route, for every release (the behaviour before; bench/deploy's baseline).
   */
  warmPrevious?: boolean;
}

export interface DeploymentObserver {
  building(d: DeploymentRecord): Promise<void>;
  settled(d: DeploymentRecord): Promise<void>;
}

/**
 * Runs the `deployment.run` job: the build phase (the strategy of the deployment's image source), then the deploy
 * phase (the rollout on the agent). Every move of the deployment is a conditional update whose sources come from the
 * state table (deployment-state.ts); a job that fails for good leaves its deployment failed with a reason and the
 * app's status coherent.
 */
export class DeploymentRunner {
  private readonly readyTimeoutMs: number;
  private readonly stopGraceMs: number;

  constructor(private readonly deps: DeploymentRunnerDeps) {
    this.readyTimeoutMs = deps.readyTimeoutMs ?? 60_000;
    this.stopGraceMs = deps.stopGraceMs ?? 10_000;
  }

  async run(deploymentId: string, attempt: Attempt = { number: 1, final: true }): Promise<{ status: string }> {
    if (!this.deps.observer) return this.runOnce(deploymentId, attempt);
    try {
      return await this.runOnce(deploymentId, attempt);
    } finally {
      await this.tellSettled(deploymentId);
    }
  }

  private async tellSettled(deploymentId: string): Promise<void> {
    const d = await this.deps.deployments.get(deploymentId).catch(() => null);
    if (d && isDeploymentFinished(d.status)) await this.deps.observer?.settled(d).catch(() => undefined);
  }

  private async runOnce(deploymentId: string, attempt: Attempt): Promise<{ status: string }> {
    const { deployments, apps } = this.deps;
    const d = await deployments.get(deploymentId);
    if (!d) throw new AppError('not_found', `No deployment ${deploymentId}`);
    if (isDeploymentFinished(d.status)) return { status: d.status };
    const app = await apps.getById(d.appId);
    if (!app || app.deletedAt) return this.fail(d, null, 'The app was deleted');
    const log = await DeployLog.resume(deployments, d.id, this.deps.clock, this.deps.maxLogBytes);
    try {
      const node = await apps.nodeOf(app.workspaceId);
      if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
      const target = { name: node.name, grpcAddress: node.grpcAddress };
      let image = d.imageId && d.imageRef ? { imageId: d.imageId, imageRef: d.imageRef } : null;
      if (d.status !== 'deploying') {
        const building = await this.move(d.id, 'building', { startedAt: d.startedAt ?? this.deps.clock() });
        if (!building) return { status: (await deployments.get(d.id))?.status ?? 'unknown' };
        await apps.setState(app.id, { status: 'deploying' });
        if (d.status === 'queued') await this.deps.observer?.building(building).catch(() => undefined);
        const source = this.deps.sources[d.source];
        if (!source) throw new AppError('validation_failed', `Deployments from ${d.source} are not supported yet`);
        image = await source.prepare({ target, app, deployment: d, log });
        if (!image) return this.cancelled(app, log, 'Build stopped: the deployment was cancelled');
        await log.flush();
        const deploying = await this.move(d.id, 'deploying', image);
        if (!deploying) return this.cancelled(app, log, 'Cancelled before the rollout');
      }
      if (!image) throw new AppError('image_unavailable', 'The deployment has no image on the server');
      const ready = image;
      return await this.deps.locks.hold('app', app.id, () => this.rollout(target, app, d, ready, log));
    } catch (e) {
      const reason = (e as Error).message;
      if (e instanceof AppError && e.code === 'rollout_failed') {
        for (const line of reason.split('\n')) log.add('deploy', line);
      } else {
        log.add(d.status === 'deploying' ? 'deploy' : 'build', `Try ${attempt.number} failed: ${reason}`);
      }
      // Written before the deployment is seen failed: the log is complete (with what a cap dropped) by then.
      await log.close();
      if (!isTransient(e) || attempt.final) {
        // The log has the whole message; the reason is a sentence about the app (failure-reason.ts).
        await this.fail(d, app, failureReasonOf(e));
        if (e instanceof AppError && e.code === 'rollout_failed') return { status: 'failed' };
      }
      throw e;
    } finally {
      // The line that says how much of a noisy build's log was dropped (nothing when it kept within its cap).
      await log.close();
    }
  }

  /** The job failed for good (stalled, bad payload…): the deployment must not stay in a running state. */
  async failedForGood(deploymentId: string, reason: string): Promise<void> {
    const d = await this.deps.deployments.get(deploymentId);
    if (!d || isDeploymentFinished(d.status)) return;
    // The queue's own words (a stalled job, a bad payload) go to the log; the user reads what to do.
    const log = await DeployLog.resume(this.deps.deployments, d.id, this.deps.clock, this.deps.maxLogBytes);
    log.add(d.status === 'deploying' ? 'deploy' : 'build', `The job ended without finishing: ${reason}`);
    await log.flush();
    await this.fail(d, await this.deps.apps.getById(d.appId), INTERRUPTED_REASON);
    await this.tellSettled(deploymentId);
  }

  /**
   * The deploy phase, under the app's lock: a new container from the stored image, ready on its port, then the
   * deployment goes live. It goes live whatever the app's desired state (so that a later start is instant), but the
   * route moves only for an app meant to run, and once live the containers follow the desired state as it is then:
   * a stop accepted while the deployment ran leaves the app stopped, with no route and no running container.
   */
  private async rollout(
    target: { name: string; grpcAddress: string },
    stale: AppWithDeployment,
    d: DeploymentRecord,
    image: { imageId: string; imageRef: string },
    log: DeployLog,
  ): Promise<{ status: string }> {
    const app = (await this.deps.apps.getById(stale.id)) ?? stale;
    if (app.currentDeployment && app.currentDeployment.number > d.number) {
      // Requested earlier, ready later: the deployment requested last is the one that stays live.
      const moved = await this.move(d.id, 'superseded', { finishedAt: this.deps.clock() });
      log.add('deploy', `Deployment #${app.currentDeployment.number}, requested later, went live first: this one is superseded without a rollout`);
      await log.flush();
      return { status: moved ? 'superseded' : ((await this.deps.deployments.get(d.id))?.status ?? 'unknown') };
    }
    const prune = await this.imagesToPrune(app, d);
    const wanted = app.desiredState === 'running';
    const route = wanted && app.kind === 'web' && app.subdomain && d.port ? appHost(app.subdomain, this.deps.appsDomain) : '';
    log.add('deploy', `Starting a container (${d.cpuMillis} millis of vCPU, ${d.memoryMb} MB)`);
    const result = await this.deps.agents.rolloutApp(
      target,
      {
        operationId: `${d.id}-rollout`,
        workspaceId: app.workspaceId,
        appId: app.id,
        deploymentId: d.id,
        imageRef: image.imageRef,
        cpuMillis: d.cpuMillis,
        memoryMb: d.memoryMb,
        port: app.kind === 'web' ? (d.port ?? 0) : 0,
        env: await openEnvironment(this.deps.env, this.deps.secrets, { workspaceId: app.workspaceId, appId: app.id }),
        healthPath: app.healthPath ?? '',
        routeHost: route,
        readyTimeoutMs: this.readyTimeoutMs,
        stopGraceMs: this.stopGraceMs,
        pruneImageRefs: prune.flatMap((p) => (p.imageRef ? [p.imageRef] : [])),
        diskMb: app.diskMb,
        warmPrevious: this.deps.warmPrevious ?? true,
        // A rollback reuses an image that ran here before: no settle window when it passed one (the agent knows).
        maySkipSettle: (this.deps.warmPrevious ?? true) && d.source === 'rollback',
      },
      (line) => log.add('deploy', line),
    );
    // Every line the agent sent is stored before anyone can see the deployment live: its log reads whole from then on.
    await log.flush();
    const live = await this.deps.deployments.goLive(
      d.id,
      { containerId: result.containerId, hostPort: result.hostPort || null, imageId: image.imageId, imageRef: image.imageRef },
      this.deps.clock(),
    );
    if (prune.length) await this.deps.deployments.markImagesGone(prune.map((p) => p.id));
    if (live) {
      const { actions } = await this.deps.converge.converge(target, app.id, { operationId: `${d.id}-converge`, settleDeploying: true });
      if (actions.some((a) => a.kind === 'stop')) log.add('deploy', 'The app was stopped meanwhile: its new container is stopped, with no route');
    }
    log.add(
      'deploy',
      !live
        ? 'The deployment was no longer deploying; nothing changed'
        : result.settleMs
          ? `Live; the previous release stays warm behind it for its ${(result.settleMs / 1000).toFixed(1)} s settle window`
          : 'Live',
    );
    await log.close();
    return { status: live?.status ?? 'unknown' };
  }

  /** A move of the state table: the conditional update's sources are the statuses the table allows it from. */
  private move(
    deploymentId: string,
    to: DeploymentStatus,
    changes?: DeploymentChanges,
  ): Promise<DeploymentRecord | null> {
    return this.deps.deployments.move(deploymentId, deploymentSources(to), to, changes);
  }

  private async cancelled(app: AppWithDeployment, log: DeployLog, line: string): Promise<{ status: string }> {
    log.add('build', line);
    await log.flush();
    await this.settleApp(app);
    return { status: 'cancelled' };
  }

  /**
   * Moves the app back to a coherent status, then the deployment to failed (from wherever it is not finished): whoever
   * sees the deployment failed sees the app as its server shows it, never still `deploying`.
   */
  private async fail(d: DeploymentRecord, app: AppWithDeployment | null, reason: string): Promise<{ status: string }> {
    if (app) await this.settleApp(app);
    await this.move(d.id, 'failed', { failureReason: reason, finishedAt: this.deps.clock() });
    return { status: 'failed' };
  }

  /**
   * After a failed or cancelled deployment: an app with nothing live is `failed`; one with a live deployment shows
   * what its container does, brought to the desired state first (under the app's lock).
   */
  private async settleApp(app: AppWithDeployment): Promise<void> {
    const fresh = await this.deps.apps.getById(app.id);
    if (!fresh || fresh.deletedAt) return;
    if (!isInUse(fresh.currentDeployment?.status)) {
      await this.deps.apps.setState(fresh.id, { status: 'failed' });
      return;
    }
    try {
      const node = await this.deps.apps.nodeOf(fresh.workspaceId);
      if (!node) throw new AppError('node_unavailable', 'The workspace is not placed on a server');
      const target = { name: node.name, grpcAddress: node.grpcAddress };
      await this.deps.locks.hold('app', fresh.id, () =>
        this.deps.converge.converge(target, fresh.id, { operationId: journalIdOf(`settle-${fresh.currentDeploymentId}-${fresh.generation}`), settleDeploying: true }),
      );
    } catch (e) {
      // The server did not answer: the status stays as it was until the next reconcile pass compares it.
      this.deps.logger.warn({ appId: fresh.id, err: (e as Error).message }, 'could not compare the app with its container after a failed deployment');
    }
  }

  /** Deployments whose images go: all but the live one and the newest others, KEPT_IMAGES in all with the new one. */
  private async imagesToPrune(app: AppWithDeployment, d: DeploymentRecord): Promise<DeploymentRecord[]> {
    const others = (await this.deps.deployments.withImages(app.id)).filter((x) => x.id !== d.id && x.id !== app.currentDeploymentId);
    const keep = KEPT_IMAGES - 1 - (app.currentDeploymentId ? 1 : 0);
    return others.slice(Math.max(0, keep));
  }
}
