import { AppError } from '../errors';
import type { AgentGateway, AgentTarget } from '../ports/agents';
import type { AppWithDeployment, DeploymentJobStore, DeploymentRecord, DeploymentSource } from './app.ports';
import type { BuildsGateway, BuildVariable, BuildZipInput, BuildZipResult } from './build.ports';
import { githubSettingsOf, type GithubApi } from '../github/github.ports';
import type { DeployLog } from './deploy-log';

export { openBuildVariables } from './environment';

/** An image on the app's server: its id and the tag the agent gave it (stored on the deployment, never computed). */
export interface PreparedImage {
  imageId: string;
  imageRef: string;
}

export interface ImageSourceContext {
  target: AgentTarget;
  app: AppWithDeployment;
  deployment: DeploymentRecord;
  log: DeployLog;
}

/**
 * The build phase of one kind of deployment: how its image gets onto the server, each line into the build log.
 * null when the deployment was cancelled while it ran. One strategy per image source.
 */
export interface ImageSource {
  prepare(ctx: ImageSourceContext): Promise<PreparedImage | null>;
}

export type ImageSources = Record<DeploymentSource, ImageSource>;

/** `image`: the agent pulls the reference (or finds it locally) and tags it for the deployment. */
export class PulledImage implements ImageSource {
  constructor(private readonly agents: AgentGateway) {}

  async prepare({ target, app, deployment: d, log }: ImageSourceContext): Promise<PreparedImage> {
    if (!d.image) throw new AppError('validation_failed', 'The deployment has no image');
    log.add('build', `Preparing image ${d.image}`);
    return tagOnServer(this.agents, { target, app, d, log }, d.image, false);
  }
}

/** `rollback`: the image of an earlier deployment, still on the server; never pulled, never built. */
export class EarlierImage implements ImageSource {
  constructor(
    private readonly agents: AgentGateway,
    private readonly deployments: DeploymentJobStore,
  ) {}

  async prepare({ target, app, deployment: d, log }: ImageSourceContext): Promise<PreparedImage> {
    const from = d.rollbackOfId ? await this.deployments.get(d.rollbackOfId) : await this.builtWithSameImage(d);
    if (!from?.imageRef) throw new AppError('image_unavailable', 'The image of that deployment is no longer on the server');
    log.add('build', `Using the image of deployment ${from.id} (no build)`);
    return tagOnServer(this.agents, { target, app, d, log }, from.imageRef, true);
  }

  /** The deployment that built the image a redeploy reuses (not the redeploy itself: it has no tag of its own yet). */
  private async builtWithSameImage(d: DeploymentRecord): Promise<DeploymentRecord | null> {
    return (await this.deployments.withImages(d.appId)).find((x) => x.id !== d.id && x.imageId === d.imageId) ?? null;
  }
}

/**
 * `upload`: the agent builds the uploaded .zip. The deployment's status is watched while it runs: a cancel
 * (queued/building → cancelled, by the API) stops the build on the agent. A redeploy of an upload (it has an image id
 * already) reuses the image like a rollback.
 */
export class UploadBuild implements ImageSource {
  constructor(
    private readonly builds: BuildsGateway | undefined,
    private readonly deployments: DeploymentJobStore,
    private readonly reuse: ImageSource,
    private readonly variables: BuildVariables = NO_VARIABLES,
  ) {}

  async prepare(ctx: ImageSourceContext): Promise<PreparedImage | null> {
    const { target, app, deployment: d, log } = ctx;
    if (d.imageId) return this.reuse.prepare(ctx);
    const builds = this.builds;
    if (!builds) throw new AppError('node_unavailable', 'This worker has no build service');
    return whileNotCancelled(this.deployments, d.id, async (signal) =>
      prepared(
        await builds.buildZip(target, buildInput(app, d, app.rootDirectory ?? '', await this.variables(app)), (line) => log.add('build', line), signal),
      ),
    );
  }
}

/** What `github` builds need: GitHub's API (installation tokens) and its URL, which the agent downloads from. */
export interface GithubBuildDeps {
  api: GithubApi;
  apiUrl: string;
}

/**
 * `github` (issue 16): the agent downloads the deployment's commit (a tarball, with an installation token scoped to
 * the repository, sent in the build request only) and builds the app's `rootDir` (or its `rootDirectory` setting)
 * with the upload pipeline. A redeploy of a GitHub deployment (it has an image id already) reuses the image.
 */
export class GithubBuild implements ImageSource {
  constructor(
    private readonly builds: BuildsGateway | undefined,
    private readonly deployments: DeploymentJobStore,
    private readonly reuse: ImageSource,
    private readonly github: GithubBuildDeps | null,
    private readonly variables: BuildVariables = NO_VARIABLES,
  ) {}

  async prepare(ctx: ImageSourceContext): Promise<PreparedImage | null> {
    const { target, app, deployment: d, log } = ctx;
    if (d.imageId) return this.reuse.prepare(ctx);
    const builds = this.builds;
    if (!builds) throw new AppError('node_unavailable', 'This worker has no build service');
    if (!this.github) throw new AppError('github_not_configured', 'No GitHub App is configured on this platform');
    const s = githubSettingsOf(app.github);
    if (!s || !d.commitSha) throw new AppError('validation_failed', 'The deployment names no commit of a GitHub repository');
    if (s.accessLost) throw new AppError('github_access_lost', `The app cannot read ${s.repoFullName} any more: ${s.accessLostReason ?? 'the GitHub App lost access'}`);
    const { token } = await this.github.api.installationToken(s.installationId, s.repoId);
    const apiUrl = this.github.apiUrl;
    log.add('build', `Building ${s.repoFullName} at ${d.commitSha.slice(0, 7)}${d.commit?.branch ? ` (${d.commit.branch})` : ''}${s.rootDir ? `, folder ${s.rootDir}` : ''}`);
    return whileNotCancelled(this.deployments, d.id, async (signal) =>
      prepared(
        await builds.buildGithub(
          target,
          {
            ...buildInput(app, d, app.rootDirectory ?? s.rootDir, await this.variables(app)),
            apiUrl,
            repoFullName: s.repoFullName,
            commitSha: d.commitSha!,
            token,
          },
          (line) => log.add('build', line),
          signal,
        ),
      ),
    );
  }
}

/** The build request of a deployment: the app's settings as they are now (a change applies from the next build). */
/** The app's variables for its build (opened: secret ones decrypted), read when the build starts. */
export type BuildVariables = (app: AppWithDeployment) => Promise<BuildVariable[]>;
const NO_VARIABLES: BuildVariables = async () => [];

function buildInput(app: AppWithDeployment, d: DeploymentRecord, rootDirectory: string, variables: BuildVariable[]): BuildZipInput {
  return {
    variables,
    operationId: `${d.id}-build`,
    workspaceId: app.workspaceId,
    appId: d.appId,
    deploymentId: d.id,
    buildCommand: app.buildCommand ?? '',
    startCommand: app.startCommand ?? '',
    rootDirectory,
  };
}

/**
 * Runs a build while watching the deployment's status: a cancel (queued/building → cancelled, by the API) aborts
 * `signal` and stops the build on the agent; the build then answers null.
 */
async function whileNotCancelled(
  deployments: DeploymentJobStore,
  deploymentId: string,
  build: (signal: AbortSignal) => Promise<PreparedImage>,
): Promise<PreparedImage | null> {
  const abort = new AbortController();
  const watch = setInterval(() => {
    void deployments.get(deploymentId).then(
      (now) => {
        if (now?.status === 'cancelled' || now?.status === 'superseded') abort.abort();
      },
      () => undefined,
    );
  }, 1_000);
  try {
    return await build(abort.signal);
  } catch (e) {
    const status = (await deployments.get(deploymentId))?.status;
    if (abort.signal.aborted || status === 'cancelled' || status === 'superseded') return null;
    throw e;
  } finally {
    clearInterval(watch);
  }
}

/** Asks the agent to make `image` the deployment's image; the agent answers with the id and the tag it gave it. */
async function tagOnServer(
  agents: AgentGateway,
  { target, app, d, log }: { target: AgentTarget; app: AppWithDeployment; d: DeploymentRecord; log: DeployLog },
  image: string,
  localOnly: boolean,
): Promise<PreparedImage> {
  const answer = await agents.prepareImage(
    target,
    { operationId: `${d.id}-image`, workspaceId: app.workspaceId, appId: app.id, deploymentId: d.id, image, localOnly },
    (line) => log.add('build', line),
  );
  return prepared(answer);
}

/** What the agent answered: the image and the tag it gave it (an agent that names no tag is a fault on its side). */
function prepared(answer: Pick<BuildZipResult, 'imageId' | 'imageRef'>): PreparedImage {
  if (!answer.imageId || !answer.imageRef) throw new AppError('internal', 'The agent did not name the image it made');
  return { imageId: answer.imageId, imageRef: answer.imageRef };
}

export function imageSources(deps: {
  agents: AgentGateway;
  deployments: DeploymentJobStore;
  builds?: BuildsGateway;
  github?: GithubBuildDeps | null;
  variables?: BuildVariables;
}): ImageSources {
  const rollback = new EarlierImage(deps.agents, deps.deployments);
  return {
    image: new PulledImage(deps.agents),
    rollback,
    upload: new UploadBuild(deps.builds, deps.deployments, rollback, deps.variables),
    github: new GithubBuild(deps.builds, deps.deployments, rollback, deps.github ?? null, deps.variables),
  };
}
