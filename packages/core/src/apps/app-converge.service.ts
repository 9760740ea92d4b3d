import type { SecretBox } from '../auth/secret-box';
import { journalIdOf } from '../convergence/journal-id';
import type { Logger } from '../logging';
import { LABELS, type AgentGateway, type AgentTarget, type ManagedContainer } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { AppJobStore, AppStatus, AppWithDeployment, DeploymentJobStore, DeploymentRecord, EnvRepository, StatusDetail } from './app.ports';
import { isInUse } from './deployment-state';
import { appHost, type AppsDomain } from './dto';
import { openEnvironment } from './environment';
import { DeployLog } from './deploy-log';
import { appRoute } from './routing.service';

/** The agent's sentence without its final period, to go on in a longer one. */
const sentenceOf = (s: string) => s.trim().replace(/\.$/, '');

/** What converging an app did to its containers, and why (logged, returned by the job, counted by the reconciler). */
export type ConvergeActionKind = 'start' | 'restart' | 'stop' | 'recreate' | 'remove' | 'status' | 'revert';
export interface ConvergeAction {
  appId: string;
  kind: ConvergeActionKind;
  reason: string;
  containerId?: string;
}

export interface ConvergeOptions {
  /** Agent commands are journaled under ids made from it (an operation id, a reconcile run): a retry does each once. */
  operationId: string;
  /** The app's containers as a reconcile pass listed them; listed again before anything is done from them. */
  snapshot?: ManagedContainer[];
  /** The latest intent is a restart: the running container restarts. */
  restart?: boolean;
  /** A deployment settles the app: its `deploying` status is replaced too (others keep it while a build runs). */
  settleDeploying?: boolean;
  /** Set by the comparison that follows a revert (it does not revert again). */
  reverted?: boolean;
}

export interface ConvergeResult {
  actions: ConvergeAction[];
  /** Why nothing was compared (deleted app, nothing deployed). */
  skipped?: string;
}

/** Container names of rollouts (`slipway-app-<deploymentId>`); the engine lists names with a leading slash. */
const ROLLOUT_NAME = /^\/?slipway-app-/;
const LIVE_STATES = new Set(['running', 'restarting', 'paused']);
/** A crashed app whose container runs is shown running once no crash was recorded for this long. */
export const CRASH_QUIET_MS = 20_000;
/** Past the grace period of a replaced container, the time its retirement (stop, then remove) may still take. */
const DRAIN_MARGIN_MS = 30_000;

/** A step planned from the app's record and its containers (pure: see `planConvergence`). */
export type ConvergeStep =
  | { kind: 'remove'; containerIds: string[]; reason: string }
  | { kind: 'start' | 'stop'; containerId: string; reason: string }
  | { kind: 'recreate'; reason: string }
  /** The running container (if any) is stopped with its grace period first, then a new one is made. */
  | { kind: 'restart'; containerId?: string; reason: string }
  /**
   * The current release failed inside its settle window and the agent routed the app back to the release kept warm
   * behind it (decision 0038): that one becomes the current deployment again. `reason` is the agent's sentence.
   */
  | { kind: 'revert'; toDeploymentId: string; containerId: string; failedContainerId: string; since: Date; reason: string };

/** When a stale container may go: `drainingUntil` is when the rollout that replaced it has surely retired it. */
export interface PlanOptions {
  restart?: boolean;
  now?: Date;
  /** Until then a running container of an earlier deployment may still be draining (SIGTERM and its grace period). */
  drainingUntil?: Date;
}

/**
 * What it takes for the app's containers to match its desired state: containers of deployments that are no longer
 * current go (a running one only once the rollout that replaced it had time to retire it gracefully); the current
 * one is started (or recreated from its image when it is gone) for an app meant to run, and stopped for one meant
 * to be stopped. A container Docker is restarting after a crash is left to Docker's backoff.
 */
export function planConvergence(app: AppWithDeployment, live: DeploymentRecord, containers: ManagedContainer[], o: PlanOptions = {}): ConvergeStep[] {
  const restart = o.restart ?? false;
  const draining = o.now && o.drainingUntil ? o.now < o.drainingUntil : false;
  const ofRollouts = containers.filter((c) => ROLLOUT_NAME.test(c.name) && c.labels[LABELS.app] === app.id);
  const current = ofRollouts.find((c) => c.labels[LABELS.deployment] === live.id);
  // Inside the current release's settle window the previous container is its fallback, however long the window.
  const keepRunning = draining || current?.settling === true;
  const stale = ofRollouts.filter((c) => c.labels[LABELS.deployment] !== live.id && !(keepRunning && c.state === 'running'));
  if (current?.settleFailure && current.fallbackDeploymentId) {
    const back = ofRollouts.find((c) => c.labels[LABELS.deployment] === current.fallbackDeploymentId && c.state === 'running');
    // Only while the release kept warm still runs; otherwise the failed one is treated as any crashed container.
    if (back) return [{ kind: 'revert', toDeploymentId: current.fallbackDeploymentId, containerId: back.id, failedContainerId: current.id, since: new Date(back.createdAtMs), reason: current.settleFailure }];
  }
  const steps: ConvergeStep[] = [];
  if (stale.length) {
    const deployments = [...new Set(stale.map((c) => c.labels[LABELS.deployment] ?? '?'))].join(', ');
    steps.push({ kind: 'remove', containerIds: stale.map((c) => c.id), reason: `containers of deployments that are no longer current (${deployments})` });
  }
  if (app.desiredState === 'running') {
    // A restart is a new container of the current deployment from its image, with the app's variables and size as
    // they are now (docs/decisions/0027-1): what a user changed since the deployment applies.
    if (restart) steps.push({ kind: 'restart', ...(current && LIVE_STATES.has(current.state) ? { containerId: current.id } : {}), reason: 'restart asked: a new container with the current variables and size' });
    else if (!current) steps.push({ kind: 'recreate', reason: 'the container of the current deployment is gone' });
    else if (current.state === 'restarting') return steps; // Docker's restart policy is on it, with its backoff.
    else if (current.settling) return steps; // Inside its settle window: the agent judges it (decision 0038).
    else if (current.state !== 'running') steps.push({ kind: 'start', containerId: current.id, reason: `the app should run and its container is ${current.state}` });
  } else if (current && LIVE_STATES.has(current.state)) {
    steps.push({ kind: 'stop', containerId: current.id, reason: `the app should be stopped and its container is ${current.state}` });
  }
  return steps;
}

/** The status the server shows for the app: what its current container is doing (null: keep the recorded one). */
export function observedStatus(app: AppWithDeployment, live: DeploymentRecord, containers: ManagedContainer[]): AppStatus {
  const current = containers.find((c) => ROLLOUT_NAME.test(c.name) && c.labels[LABELS.deployment] === live.id);
  if (current?.state === 'running') return 'running';
  if (current?.state === 'restarting') return 'crashed';
  // Not running: stopped when that is what was asked; otherwise it went down on its own.
  return app.desiredState === 'stopped' ? 'stopped' : 'crashed';
}

/**
 * Makes one app's containers match its desired state, read when it runs (never the action a job was queued with):
 * the work of `app.power` jobs, of a deployment once it went live (a stop accepted meanwhile wins), and of each
 * reconcile pass. The caller holds the app's lock (ResourceLocks, kind `app`). The status written afterwards is what the agent
 * reported of the current container: `running` only when it runs, `stopped` only when it does not.
 */
export class AppConvergeService {
  private readonly stopGraceMs: number;
  private readonly readyTimeoutMs: number;

  constructor(
    private readonly deps: {
      apps: AppJobStore;
      deployments: DeploymentJobStore;
      env: EnvRepository;
      secrets: SecretBox;
      agents: AgentGateway;
      appsDomain: AppsDomain;
      clock: Clock;
      logger: Logger;
      stopGraceMs?: number;
      readyTimeoutMs?: number;
    },
  ) {
    this.stopGraceMs = deps.stopGraceMs ?? 10_000;
    this.readyTimeoutMs = deps.readyTimeoutMs ?? 60_000;
  }

  async converge(node: AgentTarget, appId: string, o: ConvergeOptions): Promise<ConvergeResult> {
    const app = await this.deps.apps.getById(appId);
    if (!app || app.deletedAt) return { actions: [], skipped: 'app deleted' };
    // A release that crashed after going live is still the current one (Docker restarts it): it converges too.
    const live = isInUse(app.currentDeployment?.status) ? app.currentDeployment : null;
    if (!live) return { actions: [], skipped: 'no live deployment' };
    const list = () => this.deps.agents.listManagedContainers(node, { appId });

    const plan = { restart: o.restart, now: this.deps.clock(), drainingUntil: new Date((live.finishedAt ?? this.deps.clock()).getTime() + this.stopGraceMs + DRAIN_MARGIN_MS) };
    let containers = o.snapshot ?? (await list());
    let steps = planConvergence(app, live, containers, plan);
    this.deps.logger.debug({ appId, status: app.status, desired: app.desiredState, containers: containers.map((c) => `${c.name}:${c.state}`), steps: steps.map((s) => s.kind) }, 'compared the app with its containers');
    // A snapshot may be older than the last job on the app: anything to do is decided again on a fresh list.
    if (o.snapshot && (steps.length || this.statusChange(app, live, containers, o) !== null)) {
      containers = await list();
      steps = planConvergence(app, live, containers, plan);
    }
    const actions: ConvergeAction[] = [];
    const revert = steps.find((s) => s.kind === 'revert');
    if (revert) {
      // The record changes (another current deployment): compared again from the start, once.
      if (await this.revert(node, app, live, revert)) actions.push({ appId, kind: 'revert', reason: revert.reason, containerId: revert.containerId });
      if (o.reverted) return { actions };
      const again = await this.converge(node, appId, { ...o, snapshot: undefined, reverted: true });
      return { actions: [...actions, ...again.actions], ...(again.skipped ? { skipped: again.skipped } : {}) };
    }
    // A repair that brings the container back (a start, a recreate that waits for readiness) takes time: meanwhile the
    // status says what the server shows now (never `running` while nothing runs), then what it shows after.
    const reviving = steps.some((s) => s.kind === 'start' || s.kind === 'recreate' || s.kind === 'restart');
    const before = reviving ? this.statusChange(app, live, containers, o) : null;
    if (before && before.status !== 'running') {
      await this.deps.apps.setState(app.id, before.state);
      actions.push({ appId, kind: 'status', reason: `recorded ${app.status}, the server shows ${before.status}` });
      app.status = before.status;
      if ('statusDetail' in before.state) app.statusDetail = before.state.statusDetail ?? null;
    }
    for (const step of steps) {
      await this.apply(node, app, live, step, o.operationId);
      actions.push({ appId, kind: step.kind, reason: step.reason, ...('containerId' in step ? { containerId: step.containerId } : {}) });
    }
    if (steps.length) containers = await list();
    // A container this convergence started (not Docker's restart loop) runs: the app runs, whatever crash came before.
    const revived = reviving && observedStatus(app, live, containers) === 'running' && (app.status !== 'deploying' || o.settleDeploying);
    const change = revived ? (app.status === 'running' ? null : { status: 'running' as const, state: { status: 'running' as const, statusDetail: null, runningSince: this.deps.clock() } }) : this.statusChange(app, live, containers, o);
    if (change) {
      await this.deps.apps.setState(app.id, change.state);
      actions.push({ appId, kind: 'status', reason: `recorded ${app.status}, the server shows ${change.status}` });
    } else if (steps.some((s) => s.kind === 'start' || s.kind === 'restart' || s.kind === 'recreate') && observedStatus(app, live, containers) === 'running') {
      // Running already, but a new process since: runningSince says when it started.
      await this.deps.apps.setState(app.id, { runningSince: this.deps.clock() });
    }
    return { actions };
  }

  /** The status to write, or null when the recorded one already says what the server shows. */
  private statusChange(app: AppWithDeployment, live: DeploymentRecord, containers: ManagedContainer[], o: ConvergeOptions) {
    if (app.status === 'deploying' && !o.settleDeploying) return null;
    const status = observedStatus(app, live, containers);
    if (status === app.status) return null;
    const now = this.deps.clock();
    // Docker restarts a crashing container at once (then with backoff): running between two crashes is not running
    // again. A crashed app shows running once its container ran CRASH_QUIET_MS without a crash being recorded.
    const crashedAt = app.status === 'crashed' && app.statusDetail ? Date.parse(app.statusDetail.at) : NaN;
    if (status === 'running' && now.getTime() - crashedAt < CRASH_QUIET_MS) return null;
    if (status === 'running') return { status, state: { status, statusDetail: null, runningSince: now } };
    if (status === 'stopped') return { status, state: { status, runningSince: null } };
    const current = containers.find((c) => ROLLOUT_NAME.test(c.name) && c.labels[LABELS.deployment] === live.id);
    const detail: StatusDetail = {
      exitCode: -1,
      restarts: 0,
      message: current ? `The container is ${current.state} and the platform did not stop it` : 'The container was removed and the platform did not remove it',
      tail: '',
      at: now.toISOString(),
    };
    return { status, state: { status, statusDetail: app.statusDetail ?? detail, runningSince: null } };
  }

  /**
   * Records what the agent did when the current release failed inside its settle window: the release kept warm serves
   * again. The failed deployment is `crashed` with the agent's reason, the other one live and current again; both
   * logs say why. False when the record changed meanwhile (a newer deployment went live).
   */
  private async revert(node: AgentTarget, app: AppWithDeployment, live: DeploymentRecord, step: Extract<ConvergeStep, { kind: 'revert' }>): Promise<boolean> {
    // The crash watch writes the app's last lines when it records the exit; one that did not (its event came while the
    // rollout held the app) leaves the deployment live: they are read here.
    const tail = live.status === 'live' ? await this.lastLines(node, step.failedContainerId) : '';
    const back = await this.deps.deployments.get(step.toDeploymentId);
    if (!back) return false;
    const reason = `${sentenceOf(step.reason)}, inside its settle window: deployment #${back.number} serves again`;
    const reverted = await this.deps.deployments.revert(app.id, live.id, back.id, reason, step.since);
    if (!reverted) return false;
    this.deps.logger.warn({ appId: app.id, from: live.id, to: back.id, reason }, 'the release failed inside its settle window: the previous one serves again');
    const failedLog = await DeployLog.resume(this.deps.deployments, live.id, this.deps.clock);
    failedLog.add('deploy', `Taken out of the route: ${reason}`);
    if (tail.trim()) {
      failedLog.add('deploy', 'Last log lines:');
      for (const line of tail.trimEnd().split('\n')) failedLog.add('deploy', line);
    }
    await failedLog.flush();
    const backLog = await DeployLog.resume(this.deps.deployments, back.id, this.deps.clock);
    backLog.add('deploy', `Serving again: deployment #${live.number} failed inside its settle window (${sentenceOf(step.reason)})`);
    await backLog.flush();
    return true;
  }

  private async lastLines(node: AgentTarget, containerId: string): Promise<string> {
    try {
      return await this.deps.agents.containerLogs(node, { containerId, tail: 20 });
    } catch {
      return '';
    }
  }

  private async apply(node: AgentTarget, app: AppWithDeployment, live: DeploymentRecord, step: ConvergeStep, operationId: string): Promise<void> {
    if (step.kind === 'revert') return; // recorded before any step (converge)
    const journalId = journalIdOf(`${operationId}-${step.kind}`);
    this.deps.logger.info({ appId: app.id, step: step.kind, reason: step.reason }, 'converging the app');
    if (step.kind === 'remove') {
      await this.deps.agents.removeManagedContainers(node, { operationId: journalId, containerIds: step.containerIds });
      return;
    }
    if (step.kind === 'restart' && step.containerId) {
      // Gracefully (SIGTERM, its grace period): the rollout would otherwise remove the running container at once.
      await this.deps.agents.appPower(node, {
        operationId: journalIdOf(`${operationId}-restart-stop`),
        workspaceId: app.workspaceId,
        appId: app.id,
        action: 'stop',
        containerId: step.containerId,
        route: null,
        stopGraceMs: this.stopGraceMs,
      });
    }
    if (step.kind === 'recreate' || step.kind === 'restart') {
      await this.recreate(node, app, live, journalId);
      return;
    }
    await this.deps.agents.appPower(node, {
      operationId: journalId,
      workspaceId: app.workspaceId,
      appId: app.id,
      action: step.kind,
      containerId: step.containerId,
      route: appRoute(app, live, this.deps.appsDomain),
      stopGraceMs: this.stopGraceMs,
    });
  }

  /**
   * A new container of the current deployment from its stored image (the same rollout as the deployment's), with the
   * app's variables and size as they are now; the deployment records the container and the size it runs with.
   */
  private async recreate(node: AgentTarget, app: AppWithDeployment, live: DeploymentRecord, journalId: string): Promise<void> {
    if (!live.imageRef) throw new Error(`The current deployment ${live.id} has no image on the server`);
    const result = await this.deps.agents.rolloutApp(
      node,
      {
        operationId: journalId,
        workspaceId: app.workspaceId,
        appId: app.id,
        deploymentId: live.id,
        imageRef: live.imageRef,
        cpuMillis: app.cpuMillis,
        memoryMb: app.memoryMb,
        port: app.kind === 'web' ? (live.port ?? 0) : 0,
        env: await openEnvironment(this.deps.env, this.deps.secrets, { workspaceId: app.workspaceId, appId: app.id }),
        healthPath: app.healthPath ?? '',
        routeHost: app.kind === 'web' && app.subdomain && live.port ? appHost(app.subdomain, this.deps.appsDomain) : '',
        readyTimeoutMs: this.readyTimeoutMs,
        stopGraceMs: this.stopGraceMs,
        pruneImageRefs: [],
        // The project folder keeps its size (a server that lost it makes it again at the app's, not the default).
        diskMb: app.diskMb,
      },
      () => undefined,
    );
    await this.deps.deployments.move(live.id, [live.status], live.status, { containerId: result.containerId, hostPort: result.hostPort || null, cpuMillis: app.cpuMillis, memoryMb: app.memoryMb });
  }
}
