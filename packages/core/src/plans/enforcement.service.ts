import type { Logger } from '../logging';
import type { WorkspaceRepository } from '../ports/repositories';

/**
 * The `plan.suspend-expired` job: suspends every live workspace whose grace period ended at `now` without an
 * active (paid) billing status. Mutations there then answer 403 workspace_suspended. Idempotent: a workspace is
 * suspended once (conditional update on suspendedAt being null).
 */
export class PlanEnforcementService {
  constructor(private readonly deps: { workspaces: WorkspaceRepository; logger: Logger }) {}

  async suspendExpired(now: Date): Promise<{ suspended: string[] }> {
    const suspended = await this.deps.workspaces.suspendExpired(now);
    if (suspended.length) this.deps.logger.info({ suspended }, 'workspaces suspended: grace period over');
    return { suspended };
  }
}
