import type { StatusDetail } from '@slipway/contracts';
import type { Logger } from '../logging';
import { LABELS, type AgentGateway, type AgentTarget, type ContainerExitEvent } from '../ports/agents';
import type { AppJobStore } from './app.ports';
import { MAX_LOG_LINE } from './log-lines';

/** Last log lines kept in a crashed app's statusDetail. */
const CRASH_TAIL_LINES = 20;
/** Exit codes of a container stopped by the platform (SIGTERM, then SIGKILL after the grace period). */
const STOPPED_BY_PLATFORM = new Set([137, 143]);

/** Container exits the agents report, turned into the app's `crashed` status. */
export class CrashWatchService {
  constructor(private readonly deps: { apps: AppJobStore; agents: AgentGateway; logger: Logger }) {}

  /**
   * An exit of the app's live container that the platform did not cause (not a SIGTERM/SIGKILL stop, app meant to
   * run) marks the app crashed, with the exit code, the restarts so far, a message and the last log lines; Docker's
   * restart policy brings the container back with backoff.
   */
  async containerExited(node: AgentTarget, e: ContainerExitEvent): Promise<void> {
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
    await this.deps.apps.setState(app.id, { status: 'crashed', statusDetail: detail, runningSince: null });
  }
}
