import type { CommitInfo } from '../github/github.ports';
import type { GithubService } from '../github/github.service';
import type { CreateDeploymentRequest, Deployment, DeploymentPage, LogChunk } from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import { AppError } from '../errors';
import { diskLow } from '../nodes/node.ports';
import type { UserRepository } from '../ports/repositories';
import type { JobQueue } from '../ports/jobs';
import { uuidv7 } from '../ids';
import { DEPLOYMENT_RUN_JOB } from '../jobs';
import type { AppRepository, DeploymentRecord, DeploymentRepository } from './app.ports';
import type { BuildsGateway } from './build.ports';
import { notFoundApp } from './app.service';
import { CANCELLABLE, isDeploymentFinished } from './deployment-state';
import { toDeployment } from './dto';

const CURSOR_MAX = 200;

/**
 * Deployments as the API sees them: creation (a queued row plus the `deployment.run` job, job id = deployment id),
 * history, cancel (conditional move from queued or building), rollback (a new deployment from an earlier image,
 * no build) and the build/deploy log in chunks. The rollout itself is DeploymentRunner's, in the worker.
 */
/** How often a followed log is read again while it waits for a line. */
const FOLLOW_POLL_MS = 100;

export class DeploymentService {
  constructor(
    private readonly deps: {
      apps: AppRepository;
      deployments: DeploymentRepository;
      users: UserRepository;
      jobs: JobQueue;
      /** Uploads (POST deployments/upload): the agent stores and later builds the .zip. */
      builds?: BuildsGateway;
      /** config.limits.uploadZipBytes: a .zip past this is refused with 413 as soon as it is passed. */
      maxZipBytes?: number;
      /** GitHub apps (issue 16): the commit a deployment builds is resolved and checked with GitHub. */
      github?: GithubService;
    },
  ) {}

  async create(access: WorkspaceAccess, appId: string, input: CreateDeploymentRequest): Promise<Deployment> {
    const app = await this.app(access, appId);
    await this.assertRoom(access, 'A new deployment');
    let image: string | null = null;
    let imageId: string | null = null;
    let commit: CommitInfo | null = null;
    if (app.source === 'github') {
      if (!this.deps.github) throw new AppError('github_not_configured', 'No GitHub App is configured on this platform');
      commit = await this.deps.github.commitToDeploy(access.workspace.id, app.github, input.commitSha);
    } else if (app.source === 'image') {
      image = input.image ?? app.image;
      if (!image) throw new AppError('validation_failed', 'The app has no image to deploy', [{ field: '/image', message: 'is required: the app has no image' }]);
    } else if (app.source === 'upload') {
      // Redeploys the image already built, with the current variables and size.
      const built = app.currentDeployment ?? (await this.deps.deployments.withImages({ workspaceId: access.workspace.id, appId: app.id }))[0] ?? null;
      if (!built?.imageId) throw new AppError('no_image_built', 'The app has no built image yet: upload a .zip first');
      image = built.image;
      imageId = built.imageId;
    }
    return toDeployment(await this.queue(access, app, { source: app.source, image, imageId, commitSha: commit?.sha ?? input.commitSha ?? null, commit, rollbackOfId: null }));
  }

  /**
   * A .zip upload: streamed to the agent of the workspace's server as it arrives (never held whole here), counted
   * as it passes: 413 `payload_too_large` as soon as the limit is passed, and nothing stays on the server. Once the
   * agent has the whole file, the deployment is created under the id the file was stored as and queued; the worker
   * builds it (deployment.run).
   */
  async upload(access: WorkspaceAccess, appId: string, body: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<Deployment> {
    const app = await this.app(access, appId);
    if (app.source !== 'upload') throw new AppError('source_mismatch', `The app's source is ${app.source}: only apps created with source upload take a .zip`);
    const max = this.deps.maxZipBytes ?? 200_000_000;
    if (declaredBytes !== undefined && declaredBytes > max) throw zipTooLarge(max);
    const builds = this.deps.builds;
    const node = await this.assertRoom(access, 'An upload');
    if (!builds || !node) throw new AppError('node_unavailable', "The workspace's server is not known");
    const target = { name: node.name, grpcAddress: node.grpcAddress };
    const id = uuidv7();
    await builds.uploadZip(target, id, limitZip(body, max));
    try {
      return toDeployment(await this.queue(access, app, { id, source: 'upload', image: null, imageId: null, commitSha: null, rollbackOfId: null }));
    } catch (e) {
      await builds.discardUpload(target, id).catch(() => undefined);
      throw e;
    }
  }

  async get(access: WorkspaceAccess, appId: string, deploymentId: string): Promise<Deployment> {
    return toDeployment(await this.find(access, appId, deploymentId));
  }

  async list(access: WorkspaceAccess, appId: string, page: { cursor?: string; limit: number }): Promise<DeploymentPage> {
    const app = await this.app(access, appId);
    const beforeNumber = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const rows = await this.deps.deployments.list({ workspaceId: access.workspace.id, appId: app.id }, { beforeNumber, limit: page.limit + 1 });
    const data = rows.slice(0, page.limit);
    const last = data.at(-1);
    return { data: data.map(toDeployment), nextCursor: rows.length > page.limit && last ? encodeCursor(last.number) : null };
  }

  async cancel(access: WorkspaceAccess, appId: string, deploymentId: string): Promise<Deployment> {
    const d = await this.find(access, appId, deploymentId);
    const scope = { workspaceId: access.workspace.id, appId: d.appId, deploymentId: d.id };
    const moved = await this.deps.deployments.move(scope, CANCELLABLE, 'cancelled', { finishedAt: new Date(), failureReason: null });
    if (!moved) throw new AppError('deployment_not_cancellable', `The deployment is ${(await this.deps.deployments.find(scope))?.status ?? d.status}: only queued or building deployments can be cancelled`);
    return toDeployment(moved);
  }

  async rollback(access: WorkspaceAccess, appId: string, deploymentId: string): Promise<Deployment> {
    const app = await this.app(access, appId);
    await this.assertRoom(access, 'A new deployment');
    const target = await this.find(access, appId, deploymentId);
    if (!target.imageId || !target.imageAvailable) {
      throw new AppError('image_unavailable', 'The image of that deployment is no longer on the server');
    }
    return toDeployment(
      await this.queue(access, app, { source: 'rollback', image: target.image, imageId: target.imageId, commitSha: target.commitSha, commit: target.commit ?? null, rollbackOfId: target.id }),
    );
  }

  async logs(access: WorkspaceAccess, appId: string, deploymentId: string, page: { after: number; limit: number }): Promise<LogChunk> {
    const d = await this.find(access, appId, deploymentId);
    // Read the status before the lines: a deployment seen finished has written every line it ever will.
    const finished = isDeploymentFinished(d.status);
    const lines = await this.deps.deployments.readLogs({ workspaceId: access.workspace.id, appId: d.appId, deploymentId: d.id }, page.after, page.limit + 1);
    const data = lines.slice(0, page.limit);
    return {
      data: data.map((l) => ({ seq: l.seq, phase: l.phase, text: l.text, at: l.at.toISOString() })),
      nextAfter: data.at(-1)?.seq ?? page.after,
      done: finished && lines.length <= page.limit,
      truncated: false,
    };
  }

  /**
   * `logs`, but when nothing is after `after` and the deployment runs, waits up to `waitMs` for a line (checked every
   * 100 ms, stopped by `signal`): a client follows a build with one request per batch of lines instead of polling.
   */
  async follow(
    access: WorkspaceAccess,
    appId: string,
    deploymentId: string,
    page: { after: number; limit: number },
    wait: { waitMs: number; signal?: AbortSignal },
  ): Promise<LogChunk> {
    const deadline = Date.now() + wait.waitMs;
    for (;;) {
      const chunk = await this.logs(access, appId, deploymentId, page);
      if (chunk.data.length || chunk.done || Date.now() >= deadline || wait.signal?.aborted) return chunk;
      await new Promise((r) => setTimeout(r, Math.min(FOLLOW_POLL_MS, deadline - Date.now())));
    }
  }

  private async queue(
    access: WorkspaceAccess,
    app: { id: string; cpuMillis: number; memoryMb: number; port: number | null },
    what: Pick<DeploymentRecord, 'source' | 'image' | 'imageId' | 'commitSha' | 'commit' | 'rollbackOfId'> & { id?: string },
  ): Promise<DeploymentRecord> {
    const user = await this.deps.users.findById(access.actor.userId);
    const d = await this.deps.deployments.create({
      workspaceId: access.workspace.id,
      appId: app.id,
      ...what,
      cpuMillis: app.cpuMillis,
      memoryMb: app.memoryMb,
      port: app.port,
      triggeredBy: user ? { id: user.id, name: user.name } : null,
    });
    try {
      await this.deps.jobs.enqueue(DEPLOYMENT_RUN_JOB, { deploymentId: d.id }, { jobId: d.id });
    } catch (e) {
      // Redis unreachable: no job will ever run this row, so it must not stay queued. The caller gets the error (503).
      await this.deps.deployments
        .move({ workspaceId: access.workspace.id, appId: app.id, deploymentId: d.id }, ['queued'], 'failed', {
          failureReason: 'The deployment could not be queued (the job queue was not reachable); deploy again',
          finishedAt: new Date(),
        })
        .catch(() => undefined);
      throw e;
    }
    return d;
  }

  /**
   * 503 `server_disk_low`, naming the server, while the workspace's server reported less free disk than its reserve
   * at its last health check: new builds, deployments and uploads wait, running apps run on. The agent refuses too.
   */
  private async assertRoom(access: WorkspaceAccess, what: string) {
    const node = await this.deps.apps.nodeOf({ workspaceId: access.workspace.id });
    if (node && diskLow(node) && node.disk) {
      throw new AppError(
        'server_disk_low',
        `The server ${node.name} is low on disk (${node.disk.freeMb} MB free, ${node.disk.reserveMb} MB kept for running apps): ${what} waits until room is back`,
        [{ node: node.name, freeMb: node.disk.freeMb, reserveMb: node.disk.reserveMb }],
      );
    }
    return node;
  }

  private async app(access: WorkspaceAccess, appId: string) {
    const app = await this.deps.apps.findApp({ workspaceId: access.workspace.id, appId });
    if (!app) throw notFoundApp();
    return app;
  }

  private async find(access: WorkspaceAccess, appId: string, deploymentId: string): Promise<DeploymentRecord> {
    await this.app(access, appId);
    const d = await this.deps.deployments.find({ workspaceId: access.workspace.id, appId, deploymentId });
    if (!d) throw new AppError('not_found', 'The deployment was not found');
    return d;
  }
}

const zipTooLarge = (max: number) => new AppError('payload_too_large', `A .zip upload is limited to ${max} bytes`);

/** Passes `body` through, failing as soon as more than `max` bytes went by. */
async function* limitZip(body: AsyncIterable<Uint8Array>, max: number): AsyncGenerator<Uint8Array> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > max) throw zipTooLarge(max);
    yield chunk;
  }
}

/** Opaque to clients: base64url of `d:<number>` (the page continues below that deployment number). */
export function encodeCursor(number: number): string {
  return Buffer.from(`d:${number}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const bad = () => new AppError('invalid_cursor', 'The cursor is not one this API gave out');
  if (cursor.length === 0 || cursor.length > CURSOR_MAX || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  const m = /^d:([1-9][0-9]{0,14})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw bad();
  return Number(m[1]);
}
