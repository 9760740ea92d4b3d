import type { DeploymentJobStore, DeploymentRepository } from '../apps/app.ports';
import { AppError } from '../errors';
import { DEPLOYMENT_RUN_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { Attempt } from '../operations/operation-runner';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import { MAX_MESSAGE } from './github-client';
import type { CommitInfo, GithubApi, GithubAppRow, GithubDeliveryRepository, GithubJobStore } from './github.ports';

type Json = Record<string, unknown>;
const ZERO_SHA = /^0{40}$/;
const DELIVERY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface GithubDeliveryDeps {
  deliveries: GithubDeliveryRepository;
  store: GithubJobStore;
  /** Request-side deployments (numbering, the generation bump), in the app's own workspace. */
  deployments: DeploymentRepository;
  deploymentJobs: DeploymentJobStore;
  jobs: JobQueue;
  /** The compare API, for pushes whose file list GitHub truncated (watchRootOnly). null: not configured. */
  api: GithubApi | null;
  webUrl: string;
  clock: Clock;
  logger: Logger;
}

/**
 * The `github.delivery` job: what a webhook delivery asks for, done once per delivery id.
 * - `push` to a branch: a deployment of that commit for every app with autoDeploy on that repository (by id) and
 *   branch, and with watchRootOnly only when a changed file lies under its rootDir (a truncated list asks the compare
 *   API; when that fails too, it deploys). A push queued for an app before and not yet started is superseded.
 *   Tag pushes and branch deletions do nothing.
 * - `installation` deleted / suspend / unsuspend and `installation_repositories` removed / added set or clear
 *   `accessLost` on the apps concerned (deployments then answer 409 `github_access_lost`, with the reason).
 */
export class GithubDeliveryService {
  constructor(private readonly deps: GithubDeliveryDeps) {}

  /**
   * A try that fails is retried by the job; the last one marks the delivery failed, so that GitHub's redelivery of it
   * is taken again (a failed delivery row is not a duplicate).
   */
  async handle(deliveryId: string, attempt: Attempt = { number: 1, final: true }): Promise<{ result: string }> {
    try {
      return await this.handleOnce(deliveryId);
    } catch (e) {
      if (attempt.final) await this.deps.deliveries.finish(deliveryId, 'failed', (e as Error).message).catch(() => undefined);
      throw e;
    }
  }

  private async handleOnce(deliveryId: string): Promise<{ result: string }> {
    const delivery = await this.deps.deliveries.get(deliveryId);
    if (!delivery || delivery.status !== 'queued') return { result: 'already handled' };
    const payload = (delivery.payload ?? {}) as Json;
    let result: string;
    switch (delivery.event) {
      case 'push':
        result = await this.push(payload);
        break;
      case 'installation':
        result = await this.installation(payload);
        break;
      case 'installation_repositories':
        result = await this.installationRepositories(payload);
        break;
      default:
        result = `event ${delivery.event} ignored`;
    }
    await this.deps.deliveries.finish(deliveryId, 'done', result);
    this.deps.logger.info({ deliveryId, event: delivery.event, result }, 'github delivery handled');
    // GitHub redelivers for 3 days at most: rows older than a month only answer "duplicate" to nobody.
    await this.deps.deliveries.prune(new Date(this.deps.clock().getTime() - DELIVERY_RETENTION_MS)).catch(() => 0);
    return { result };
  }

  private async push(p: Json): Promise<string> {
    const ref = String(p.ref ?? '');
    const after = String(p.after ?? '');
    if (!ref.startsWith('refs/heads/')) return `not a branch (${ref})`;
    if (p.deleted === true || ZERO_SHA.test(after)) return 'branch deleted';
    if (!/^[0-9a-f]{40}$/.test(after)) return 'no commit';
    const branch = ref.slice('refs/heads/'.length);
    const repo = (p.repository ?? {}) as Json;
    const repoId = Number(repo.id);
    if (!Number.isSafeInteger(repoId)) return 'no repository';
    const apps = (await this.deps.store.appsOfRepository(repoId)).filter((a) => a.github.autoDeploy && a.github.branch === branch);
    const done: string[] = [];
    for (const app of apps) {
      if (app.github.accessLost) {
        done.push(`${app.id}: access lost`);
        continue;
      }
      if (app.github.watchRootOnly && app.github.rootDir && !(await this.touchesRoot(app, p, after))) {
        done.push(`${app.id}: nothing changed under ${app.github.rootDir}`);
        continue;
      }
      const head = (p.head_commit ?? null) as Json | null;
      const author = (head?.author ?? {}) as Json;
      const commit: CommitInfo = {
        sha: after,
        message: String(head?.message ?? '').slice(0, MAX_MESSAGE),
        author: String(author.username ?? author.name ?? ''),
        branch,
        url: String(head?.url ?? `${this.deps.webUrl}/${String(repo.full_name ?? app.github.repoFullName)}/commit/${after}`),
      };
      const id = await this.deploy(app, commit);
      done.push(`${app.id}: deployment ${id}`);
    }
    return done.length ? done.join('; ') : `no app deploys ${branch}`;
  }

  /** Whether a changed file lies under the app's rootDir: from the payload, or the compare API when it was cut. */
  private async touchesRoot(app: GithubAppRow, p: Json, after: string): Promise<boolean> {
    const root = `${app.github.rootDir.replace(/\/+$/, '')}/`;
    let files = Array.isArray(p.files) ? (p.files as string[]) : [];
    const before = String(p.before ?? '');
    if (p.truncated === true) {
      const compared = this.deps.api && /^[0-9a-f]{40}$/.test(before) && !ZERO_SHA.test(before)
        ? await this.deps.api.changedFiles(app.github.installationId, app.github.repoFullName, before, after).catch(() => null)
        : null;
      if (compared === null) return true;
      files = compared;
    }
    return files.some((f) => f.startsWith(root));
  }

  private async deploy(app: GithubAppRow, commit: CommitInfo): Promise<string> {
    // A newer push wins over one still queued for the same app.
    for (const queued of await this.deps.store.queuedDeployments(app.id)) {
      await this.deps.deploymentJobs.move(queued.id, ['queued'], 'superseded', {
        finishedAt: this.deps.clock(),
        failureReason: `Superseded by a newer push (${commit.sha.slice(0, 7)}) before it started`,
      });
    }
    const d = await this.deps.deployments.create({
      workspaceId: app.workspaceId,
      appId: app.id,
      source: 'github',
      image: null,
      imageId: null,
      commitSha: commit.sha,
      commit,
      rollbackOfId: null,
      cpuMillis: app.cpuMillis,
      memoryMb: app.memoryMb,
      port: app.port,
      triggeredBy: null,
    });
    try {
      await this.deps.jobs.enqueue(DEPLOYMENT_RUN_JOB, { deploymentId: d.id }, { jobId: d.id });
    } catch (e) {
      await this.deps.deploymentJobs.move(d.id, ['queued'], 'failed', { failureReason: 'The deployment could not be queued (the job queue was not reachable)', finishedAt: this.deps.clock() });
      throw e;
    }
    return d.id;
  }

  private async installation(p: Json): Promise<string> {
    const inst = (p.installation ?? {}) as Json;
    const id = Number(inst.id);
    const login = String(((inst.account ?? {}) as Json).login ?? 'the account');
    if (!Number.isSafeInteger(id)) throw new AppError('validation_failed', 'The installation event names no installation');
    const apps = await this.deps.store.appsOfInstallation(id);
    const ids = apps.map((a) => a.id);
    switch (p.action) {
      case 'deleted':
        await this.deps.store.removeInstallation(id);
        await this.deps.store.setAccessLost(ids, `The GitHub App was uninstalled from ${login}: install it again and link it to this workspace`);
        return `installation ${id} removed; ${ids.length} app(s) lost access`;
      case 'suspend':
        await this.deps.store.setInstallationSuspended(id, true);
        await this.deps.store.setAccessLost(ids, `The GitHub App installation on ${login} is suspended: unsuspend it on GitHub`);
        return `installation ${id} suspended; ${ids.length} app(s) lost access`;
      case 'unsuspend':
        await this.deps.store.setInstallationSuspended(id, false);
        await this.deps.store.setAccessLost(apps.filter((a) => a.github.accessLostReason?.includes('suspended')).map((a) => a.id), null);
        return `installation ${id} unsuspended`;
      default:
        return `installation ${String(p.action)}: nothing to do`;
    }
  }

  private async installationRepositories(p: Json): Promise<string> {
    const id = Number(((p.installation ?? {}) as Json).id);
    if (!Number.isSafeInteger(id)) throw new AppError('validation_failed', 'The event names no installation');
    const apps = await this.deps.store.appsOfInstallation(id);
    const repoIds = (key: string) => new Set(((Array.isArray(p[key]) ? p[key] : []) as Json[]).map((r) => Number(r.id)));
    const removed = repoIds('repositories_removed');
    const added = repoIds('repositories_added');
    const lost = apps.filter((a) => removed.has(a.github.repoId));
    for (const a of lost) await this.deps.store.setAccessLost([a.id], `The repository ${a.github.repoFullName} was removed from the GitHub App installation: grant it again`);
    const back = apps.filter((a) => added.has(a.github.repoId) && a.github.accessLost && !a.github.accessLostReason?.includes('suspended'));
    await this.deps.store.setAccessLost(back.map((a) => a.id), null);
    return `${lost.length} app(s) lost access, ${back.length} regained it`;
  }
}
