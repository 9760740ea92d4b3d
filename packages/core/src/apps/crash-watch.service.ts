import type { StatusDetail } from '@slipway/contracts';
import type { Logger } from '../logging';
import { LABELS, type AgentGateway, type AgentTarget, type ContainerExitEvent } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { AppJobStore, DeploymentJobStore } from './app.ports';
import { DeployLog } from './deploy-log';
import { isInUse } from './deployment-state';
import { MAX_LOG_LINE } from './log-lines';

/** Last log lines kept in a crashed app's statusDetail. */
const CRASH_TAIL_LINES = 20;
/**
 * Exit codes of a container stopped by the platform (SIGTERM, then SIGKILL after the grace period): 143 and 137, or 0
 * from an app that handles SIGTERM and exits cleanly. An app that exits 0 on its own is restarted by Docker: the next
 * comparison sees it `restarting` and shows it crashed.
 */
const STOPPED_BY_PLATFORM = new Set([0, 137, 143]);
/** A release whose container exits on its own this soon after going live is reported on the deployment too. */
export const RELEASE_CRASH_WINDOW_MS = 60_000;

export interface CrashWatchDeps {
  apps: AppJobStore;
  deployments: Pick<DeploymentJobStore, 'move' | 'logState' | 'appendLogs'>;
  agents: AgentGateway;
  clock: Clock;
  logger: Logger;
  /** Default RELEASE_CRASH_WINDOW_MS. */
  releaseCrashWindowMs?: number;
  /** An exit while a job holds the app is the platform's doing (the job writes what the agent reports). */
  locks?: ResourceLocks;
}

/**
 * Container exits the agents report, turned into the app's `crashed` status — and, when the release went live less
 * than a minute before, into its deployment's (`live → crashed`, with the reason and the app's last lines in its
 * log): the rollout's settle window cannot see a crash that comes later, and it must not pass silently.
 */
export class CrashWatchService {
  constructor(private readonly deps: CrashWatchDeps) {}

  /**
   * An exit of the app's current container that the platform did not cause (not a SIGTERM/SIGKILL stop, app meant
   * to run) marks the app crashed, with the exit code, the restarts so far, a message and the last log lines; Docker's
   * restart policy brings the container back with backoff.
   */
  async containerExited(node: AgentTarget, e: ContainerExitEvent): Promise<void> {
    const appId = e.labels[LABELS.app];
    if (!appId) return;
    // While a job holds the app (a restart, a stop, a rollout), its exits are the platform's doing: the job, or the
    // comparison that follows the event, writes the status the agent reports.
    if (this.deps.locks) {
      await this.deps.locks.tryHold('app', appId, () => this.record(node, e));
      return;
    }
    await this.record(node, e);
  }

  private async record(node: AgentTarget, e: ContainerExitEvent): Promise<void> {
    const appId = e.labels[LABELS.app];
    const deploymentId = e.labels[LABELS.deployment];
    if (!appId || !deploymentId) return;
    const app = await this.deps.apps.getById(appId);
    if (!app || app.deletedAt || app.currentDeploymentId !== deploymentId || app.desiredState !== 'running') return;
    if (!isInUse(app.currentDeployment?.status)) return;
    const oom = e.action === 'oom' || e.oomKilled === true;
    // The agent says who caused it (issue 27); an older agent does not, and the exit code is the hint.
    if (e.cause === 'platform') return;
    // A release that died inside its settle window: the agent's window judges it, and the comparison that follows this
    // event reverts to the warm previous release with the window's reason (decision 0038). Recorded here, it would be
    // a crash "after going live" whenever the rollout job let go of the app before the death.
    if (e.settling) return;
    if (e.cause === undefined && !oom && STOPPED_BY_PLATFORM.has(e.exitCode)) return;
    let tail = '';
    try {
      tail = await this.deps.agents.containerLogs(node, { containerId: e.containerId, tail: CRASH_TAIL_LINES });
    } catch (err) {
      this.deps.logger.warn({ appId, err: (err as Error).message }, 'could not read the last log lines of a crashed app');
    }
    const previous = app.status === 'crashed' ? app.statusDetail : null;
    const detail: NonNullable<StatusDetail> = {
      exitCode: oom ? 137 : e.exitCode,
      restarts: previous ? previous.restarts + 1 : 0,
      message: e.reason || (oom ? 'The container ran out of memory and was killed' : `The container exited on its own with code ${e.exitCode}`),
      tail: tail.slice(-MAX_LOG_LINE),
      at: new Date(e.atMs).toISOString(),
    };
    // Conditional: a deployment that went live since the app was read (its rollout retires this container) wins.
    const marked = await this.deps.apps.setStateIf(app.id, { currentDeploymentId: deploymentId, desiredState: 'running' }, { status: 'crashed', statusDetail: detail, runningSince: null });
    // The release is blamed only for what it did itself: an exit on its own or an OOM kill. A stop or kill from
    // outside (docker stop/kill, or the Docker engine stopping and killing what outlives its grace) crashes the app's
    // status until the container is back, never the deployment (issue 27: the engine's restart is not a bad release).
    const onItsOwn = oom || !e.signal;
    if (marked && onItsOwn) await this.reportOnRelease(app.currentDeployment, detail, e.atMs);
  }

  /** live → crashed when the exit came within the window after the deployment went live; once per deployment. */
  private async reportOnRelease(d: { id: string; status: string; finishedAt: Date | null } | null, detail: NonNullable<StatusDetail>, atMs: number): Promise<void> {
    if (!d || d.status !== 'live' || !d.finishedAt) return;
    const after = atMs - d.finishedAt.getTime();
    if (after > (this.deps.releaseCrashWindowMs ?? RELEASE_CRASH_WINDOW_MS)) return;
    const reason = `${detail.message} ${Math.max(0, Math.round(after / 1000))} s after going live`;
    const crashed = await this.deps.deployments.move(d.id, ['live'], 'crashed', { failureReason: reason });
    if (!crashed) return;
    const log = await DeployLog.resume(this.deps.deployments, d.id, this.deps.clock);
    log.add('deploy', `Crashed: ${reason}`);
    if (detail.tail.trim()) {
      log.add('deploy', 'Last log lines:');
      for (const line of detail.tail.trimEnd().split('\n')) log.add('deploy', line);
    }
    await log.flush();
  }
}
