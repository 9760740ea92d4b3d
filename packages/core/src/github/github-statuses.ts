import type { AppJobStore, DeploymentRecord } from '../apps/app.ports';
import type { Logger } from '../logging';
import { githubSettingsOf, type CommitState, type GithubApi } from './github.ports';

const CONTEXT = 'slipway';

/**
 * Commit statuses back to GitHub (issue 16, beyond the spec): `pending` when a GitHub deployment starts building,
 * then `success` (live), `failure` (failed, with its reason) or `error` (cancelled, superseded), each linking to the
 * deployment. Best effort: an App without the `statuses: write` permission (GitHub answers 403) or GitHub being
 * unreachable never fails a deployment; it is logged.
 */
export class GithubCommitStatuses {
  constructor(
    private readonly deps: {
      api: GithubApi;
      apps: Pick<AppJobStore, 'getById'>;
      /** config.api.publicUrl: the deployment's link is `<publicUrl>/v1/workspaces/…/deployments/<id>`. */
      publicUrl: string;
      logger: Logger;
    },
  ) {}

  async building(d: DeploymentRecord): Promise<void> {
    await this.report(d, 'pending', `Deployment #${d.number} is building`);
  }

  /** A deployment that finished: its status says which commit status to post. */
  async settled(d: DeploymentRecord): Promise<void> {
    const state: Record<string, [CommitState, string]> = {
      live: ['success', `Deployment #${d.number} is live`],
      failed: ['failure', `Deployment #${d.number} failed: ${d.failureReason ?? ''}`],
      cancelled: ['error', `Deployment #${d.number} was cancelled`],
      superseded: ['error', `Deployment #${d.number} was superseded`],
    };
    const s = state[d.status];
    if (s) await this.report(d, s[0], s[1]);
  }

  private async report(d: DeploymentRecord, state: CommitState, description: string): Promise<void> {
    if (d.source !== 'github' || !d.commitSha) return;
    try {
      const app = await this.deps.apps.getById(d.appId);
      const s = githubSettingsOf(app?.github ?? null);
      if (!app || !s || s.accessLost) return;
      await this.deps.api.setCommitStatus(s.installationId, s.repoFullName, d.commitSha, {
        state,
        targetUrl: `${this.deps.publicUrl}/v1/workspaces/${app.workspaceId}/apps/${app.id}/deployments/${d.id}`,
        description,
        context: CONTEXT,
      });
    } catch (e) {
      this.deps.logger.warn({ deploymentId: d.id, err: (e as Error).message }, 'could not set the commit status on GitHub');
    }
  }
}
