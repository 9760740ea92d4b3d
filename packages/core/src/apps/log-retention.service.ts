import type { Clock } from '../ports/clock';
import type { Logger } from '../logging';

/** What keeping deployment logs within bounds needs of the database. */
export interface LogRetentionStore {
  /**
   * Deletes the log lines of every deployment that is neither among the newest `keepPerApp` of its app nor younger
   * than `olderThan`, except an app's current deployment and deployments still running. Returns what went.
   */
  pruneLogs(input: { keepPerApp: number; olderThan: Date }): Promise<{ deployments: number; lines: number }>;
}

/**
 * The `deployment.prune-logs` job: build and deploy logs are kept for the newest deployments of each app and for a
 * retention period (config.logs); older ones are removed, so a loop of noisy builds cannot grow PostgreSQL for ever.
 */
export class LogRetentionService {
  constructor(
    private readonly deps: { store: LogRetentionStore; keepDeployments: number; keepDays: number; clock: Clock; logger: Logger },
  ) {}

  async prune(): Promise<{ deployments: number; lines: number }> {
    const olderThan = new Date(this.deps.clock().getTime() - this.deps.keepDays * 24 * 60 * 60 * 1000);
    const pruned = await this.deps.store.pruneLogs({ keepPerApp: this.deps.keepDeployments, olderThan });
    if (pruned.lines > 0) this.deps.logger.info({ ...pruned, keepPerApp: this.deps.keepDeployments, olderThan }, 'deployment logs pruned');
    return pruned;
  }
}
