import { githubSettingsOf } from '../github/github.ports';
import type { GithubService } from '../github/github.service';
import { randomBytes } from 'node:crypto';
import type { App, CreateAppRequest, EnvVariable, LogChunk, Minimums, PutEnvRequest, ResourceEventList, UpdateAppRequest } from '@slipway/contracts';
import { eventList, RESOURCE_EVENTS_LIMIT, type ResourceEventReader } from '../events/resource-events';
import type { WorkspaceAccess } from '../auth/actor';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import type { Logger } from '../logging';
import type { NodeRepository } from '../nodes/node.ports';
import type { OperationRecorder } from '../operations/operation.ports';
import type { AgentGateway } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { PlanRepository } from '../ports/repositories';
import type { QuotaService } from '../quota/quota.service';
import { slugify } from '../workspaces/slug';
import { APP_POWER_JOB, APP_TEARDOWN_JOB } from '../jobs';
import type { AppPowerRequest, AppRepository, AppScope, AppTeardownRequest, AppWithDeployment, EnvRecord, EnvRepository, PowerAction } from './app.ports';
import { AppAnswers, type AppsDomain } from './dto';
import { openEnvironment } from './environment';
import { chunkLines } from './log-lines';
import { isInUse } from './deployment-state';

const DEFAULT_WEB_PORT = 8080;
const BUILD_SETTINGS = ['buildCommand', 'startCommand', 'rootDirectory'] as const;

/**
 * The build settings a request sets (undefined: left as they are; null: back to detection), trimmed, the root
 * directory without its trailing slash. They only mean something for apps Slipway builds (upload, github).
 */
function buildSettings(
  input: Partial<Record<(typeof BUILD_SETTINGS)[number], string | null>>,
  source: string,
): Partial<Record<(typeof BUILD_SETTINGS)[number], string | null>> {
  const out: Partial<Record<(typeof BUILD_SETTINGS)[number], string | null>> = {};
  for (const key of BUILD_SETTINGS) {
    const value = input[key];
    if (value === undefined) continue;
    if (source === 'image' && value !== null) throw invalid(`/${key}`, 'applies to apps built from source (upload, github), not to an image');
    out[key] = value === null ? null : key === 'rootDirectory' ? value.trim().replace(/\/+$/, '') : value.trim();
  }
  return out;
}

/** An app's project folder when the plan sets no minimum (plan versions before disk was a resource). */
const DEFAULT_DISK_MB = 512;
const DNS_LABEL_MAX = 63;
const APP_SLUG_MAX = 30;

export interface AppServiceDeps {
  apps: AppRepository;
  env: EnvRepository;
  plans: PlanRepository;
  quota: QuotaService;
  operations: OperationRecorder;
  nodes: NodeRepository;
  jobs: JobQueue;
  secrets: SecretBox;
  appsDomain: AppsDomain;
  clock: Clock;
  logger: Logger;
  /** Needed only for runtime logs (straight from the agent); without it they answer 503. */
  agents?: AgentGateway;
  /** Checks the `github` settings of GitHub apps with GitHub (issue 16); without it they answer 503. */
  github?: GithubService;
  /** The apps' events (a move to another server); without it the list is empty. */
  events?: ResourceEventReader;
}

/**
 * Apps: creation with a reservation, reads, updates (a new size is reserved at once), deletion (the reservation is
 * released at once, the server is cleaned by the `app.teardown` job), environment variables (secrets sealed with
 * AES-256-GCM, never returned), start/stop/restart (recorded as operations, done by the `app.power` job) and the
 * runtime log of the current container.
 */
export class AppService {
  private readonly answers: AppAnswers;

  constructor(private readonly deps: AppServiceDeps) {
    this.answers = new AppAnswers(deps.appsDomain);
  }

  async list(access: WorkspaceAccess): Promise<App[]> {
    const apps = await this.deps.apps.listApps({ workspaceId: access.workspace.id });
    return apps.map((a) => this.dto(a));
  }

  async get(access: WorkspaceAccess, appId: string): Promise<App> {
    const app = await this.find(access, appId);
    return this.dto(app);
  }

  async create(access: WorkspaceAccess, input: CreateAppRequest): Promise<App> {
    const minimum = (await this.minimums(access)).app;
    if (input.source === 'image' && !input.image) throw invalid('/image', 'is required when source is image');
    if (input.source === 'github' && !input.github) throw invalid('/github', 'is required when source is github');
    if (input.source !== 'github' && input.github) throw invalid('/github', 'applies to apps whose source is github');
    const github = input.source === 'github' ? await this.githubService().checkSource(access.workspace.id, input.github!) : null;
    if (input.kind === 'worker' && input.healthPath) throw invalid('/healthPath', 'applies to web apps only');
    const build = buildSettings(input, input.source);
    const cpuMillis = input.cpuMillis ?? minimum.cpuMillis;
    const diskMb = input.diskMb ?? (minimum.diskMb || DEFAULT_DISK_MB);
    checkMinimums({ cpuMillis, memoryMb: input.memoryMb, diskMb }, minimum, '');
    const id = uuidv7(this.deps.clock().getTime());
    const slug = appSlug(input.name);
    await this.deps.quota.reserve(access.workspace.id, { resourceType: 'app', resourceId: id, cpuMillis, memoryMb: input.memoryMb, diskMb });
    try {
      const created = await this.withSubdomain(input.kind === 'web' ? subdomainOf(slug, access.workspace.slug) : null, id, (subdomain) =>
        this.deps.apps.createApp({
          id,
          workspaceId: access.workspace.id,
          name: input.name.trim(),
          slug,
          kind: input.kind,
          source: input.source,
          image: input.image ?? null,
          port: input.kind === 'web' ? (input.port ?? DEFAULT_WEB_PORT) : (input.port ?? null),
          healthPath: input.healthPath ?? null,
          cpuMillis,
          memoryMb: input.memoryMb,
          diskMb,
          subdomain,
          github: github ? { ...github } : null,
          buildCommand: build.buildCommand ?? null,
          startCommand: build.startCommand ?? null,
          rootDirectory: build.rootDirectory ?? null,
        }),
      );
      if (created === 'name_taken') throw new AppError('name_taken', `An app named "${input.name.trim()}" already exists in this workspace`);
      return this.dto(created);
    } catch (e) {
      await this.deps.quota.release(access.workspace.id, id);
      throw e;
    }
  }

  async update(access: WorkspaceAccess, appId: string, input: UpdateAppRequest): Promise<App> {
    const app = await this.find(access, appId);
    const changes: Parameters<AppRepository['updateApp']>[1] = {};
    if (input.name !== undefined) {
      changes.name = input.name.trim();
      changes.slug = appSlug(input.name);
    }
    if (input.image !== undefined) {
      if (app.source !== 'image') throw invalid('/image', 'applies to apps whose source is image');
      changes.image = input.image;
    }
    if (input.port !== undefined) changes.port = input.port;
    Object.assign(changes, buildSettings(input, app.source));
    if (input.github !== undefined) {
      if (app.source !== 'github') throw invalid('/github', 'applies to apps whose source is github');
      changes.github = { ...(await this.githubService().checkSource(access.workspace.id, input.github, githubSettingsOf(app.github))) };
    }
    if (input.size && (input.size.cpuMillis !== undefined || input.size.memoryMb !== undefined || input.size.diskMb !== undefined)) {
      const size = { cpuMillis: input.size.cpuMillis ?? app.cpuMillis, memoryMb: input.size.memoryMb ?? app.memoryMb, diskMb: input.size.diskMb ?? app.diskMb };
      checkMinimums(size, (await this.minimums(access)).app, '/size');
      // A project folder keeps its files: it grows, never shrinks.
      if (size.diskMb < app.diskMb) throw invalid('/size/diskMb', `can only grow: the project folder has ${app.diskMb} MB`);
      // Reserved now (402 when it does not fit); the container and its folder get it at the next deployment.
      await this.deps.quota.reserve(access.workspace.id, { resourceType: 'app', resourceId: app.id, ...size });
      Object.assign(changes, size);
    }
    const renamed = changes.slug !== undefined && app.subdomain && changes.slug !== app.slug;
    const updated = await this.withSubdomain(renamed ? subdomainOf(changes.slug!, access.workspace.slug) : null, app.id, (subdomain) =>
      this.deps.apps.updateApp({ workspaceId: access.workspace.id, appId }, subdomain ? { ...changes, subdomain } : changes),
    );
    if (updated === 'name_taken') throw new AppError('name_taken', `An app named "${input.name?.trim()}" already exists in this workspace`);
    if (!updated) throw notFoundApp();
    return this.dto(updated);
  }

  /**
   * Writes an app with its natural subdomain, or, when another app of the platform (any workspace's) holds it, with
   * a distinct one: the natural one cut short and a suffix from the app's id, then random ones. The database's unique
   * index is the judge; another workspace's app never makes a create or a rename fail.
   */
  private async withSubdomain<T>(natural: string | null, appId: string, write: (subdomain: string | null) => Promise<T | 'subdomain_taken'>): Promise<T> {
    for (let attempt = 0; attempt < SUBDOMAIN_TRIES; attempt++) {
      const result = await write(natural === null ? null : attempt === 0 ? natural : distinctSubdomain(natural, attempt === 1 ? appId.replace(/-/g, '').slice(-6) : randomSuffix()));
      if (result !== 'subdomain_taken') return result;
    }
    throw new AppError('internal', 'No free subdomain was found for the app; try another name');
  }

  /** Gone from the API at once, quota released; the `app.teardown` job removes containers, images, route and folder. */
  async remove(access: WorkspaceAccess, appId: string): Promise<void> {
    const now = this.deps.clock();
    const app = await this.deps.apps.markDeleted({ workspaceId: access.workspace.id, appId }, now);
    if (!app) throw notFoundApp();
    await this.deps.quota.release(access.workspace.id, app.id);
    const payload: AppTeardownRequest = { workspaceId: access.workspace.id, appId: app.id };
    const op = await this.deps.operations.record({ workspaceId: access.workspace.id }, { kind: APP_TEARDOWN_JOB, nodeId: access.workspace.nodeId, payload: { ...payload } });
    await this.deps.jobs.enqueue(APP_TEARDOWN_JOB, { operationId: op.id }, { jobId: op.id });
  }

  private githubService(): GithubService {
    if (!this.deps.github) throw new AppError('github_not_configured', 'No GitHub App is configured on this platform');
    return this.deps.github;
  }

  async getEnv(access: WorkspaceAccess, appId: string): Promise<EnvVariable[]> {
    const app = await this.find(access, appId);
    return (await this.deps.env.list({ workspaceId: access.workspace.id, appId: app.id })).map(toEnvVariable);
  }

  async putEnv(access: WorkspaceAccess, appId: string, input: PutEnvRequest): Promise<EnvVariable[]> {
    const app = await this.find(access, appId);
    const seen = new Set<string>();
    input.variables.forEach((v, i) => {
      if (seen.has(v.key)) throw invalid(`/variables/${i}/key`, `repeats the key ${v.key}`);
      seen.add(v.key);
    });
    const current = new Map((await this.deps.env.list({ workspaceId: access.workspace.id, appId: app.id })).map((v) => [v.key, v]));
    const next = input.variables.map((v) => {
      const secret = v.secret ?? false;
      const before = current.get(v.key);
      if (secret && v.value === '' && before?.secret) return { key: v.key, value: before.value, secret };
      if (secret && before?.secret && this.deps.secrets.open(before.value) === v.value) return { key: v.key, value: before.value, secret };
      return { key: v.key, value: secret ? this.deps.secrets.seal(v.value) : v.value, secret };
    });
    return (await this.deps.env.replace({ workspaceId: access.workspace.id, appId: app.id }, next, this.deps.clock())).map(toEnvVariable);
  }

  /** Plain values of every variable, secrets opened: only for the container's environment. */
  environment(scope: AppScope): Promise<Record<string, string>> {
    return openEnvironment(this.deps.env, this.deps.secrets, scope);
  }

  start(access: WorkspaceAccess, appId: string): Promise<App> {
    return this.power(access, appId, 'start');
  }
  stop(access: WorkspaceAccess, appId: string): Promise<App> {
    return this.power(access, appId, 'stop');
  }
  restart(access: WorkspaceAccess, appId: string): Promise<App> {
    return this.power(access, appId, 'restart');
  }

  /**
   * An intent on the app's power: the generation bump, the desired state and the `app.power` Operation row are one
   * transaction, so the order requests were accepted in is the order of their generations. The job reads the app's
   * desired state when it runs (AppConvergeService), not the action it was queued with, so whatever order the jobs
   * run in, the intent accepted last wins.
   */
  private async power(access: WorkspaceAccess, appId: string, action: PowerAction): Promise<App> {
    const app = await this.find(access, appId);
    const live = isInUse(app.currentDeployment?.status) ? app.currentDeployment : null;
    if (action !== 'stop' && !live) throw new AppError('app_not_deployed', 'The app has no live deployment');
    const scope = { workspaceId: access.workspace.id, appId: app.id };
    const desiredState = action === 'stop' ? 'stopped' : 'running';
    // Even with no live deployment a stop is recorded with a job: a deployment in flight goes live under the app's
    // lock and its job converges afterwards; with nothing deployed the job finds nothing to do.
    const payload: AppPowerRequest = { ...scope, action };
    const recorded = await this.deps.apps.recordIntent(scope, { desiredState, operation: { kind: APP_POWER_JOB, nodeId: access.workspace.nodeId, payload: { ...payload } } });
    if (!recorded?.operationId) throw notFoundApp();
    let answer = recorded.app;
    if (!live && app.status !== 'deploying') {
      await this.deps.apps.setState(scope, { status: 'stopped', runningSince: null });
      answer = { ...answer, status: 'stopped', runningSince: null };
    }
    await this.deps.jobs.enqueue(APP_POWER_JOB, { operationId: recorded.operationId }, { jobId: recorded.operationId });
    // The app as this intent left it: its generation says where it stands among concurrent requests.
    return this.dto(answer);
  }

  /** The runtime output of the current container, numbered from its start, in chunks (phase runtime). */
  async logs(access: WorkspaceAccess, appId: string, page: { after: number; limit: number }): Promise<LogChunk> {
    const app = await this.find(access, appId);
    const containerId = app.currentDeployment?.containerId;
    if (!containerId) return { data: [], nextAfter: page.after, done: true, truncated: false };
    const node = access.workspace.nodeId ? await this.deps.nodes.get(access.workspace.nodeId) : null;
    if (!node || !this.deps.agents) throw new AppError('node_unavailable', "The app's server is not reachable");
    let text: string;
    try {
      text = await this.deps.agents.containerLogs({ name: node.name, grpcAddress: node.grpcAddress }, { containerId, tail: 0 });
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') return { data: [], nextAfter: page.after, done: true, truncated: false };
      throw e;
    }
    return chunkLines(text, page, this.deps.clock());
  }

  /** What the platform did to the app that its owners should know of (issue 32: a move to another server), newest first. */
  async events(access: WorkspaceAccess, appId: string): Promise<ResourceEventList> {
    await this.find(access, appId);
    return eventList((await this.deps.events?.list({ workspaceId: access.workspace.id, resourceId: appId }, RESOURCE_EVENTS_LIMIT)) ?? []);
  }

  private async find(access: WorkspaceAccess, appId: string): Promise<AppWithDeployment> {
    const app = await this.deps.apps.findApp({ workspaceId: access.workspace.id, appId });
    if (!app) throw notFoundApp();
    return app;
  }

  private async minimums(access: WorkspaceAccess): Promise<Minimums> {
    const plan = await this.deps.plans.findById(access.workspace.planId);
    if (!plan) throw new Error(`Workspace ${access.workspace.id} refers to a missing plan`);
    return plan.minimums as Minimums;
  }

  /** Reads touch PostgreSQL only (issue 34): the folder's usage is what the metrics pipeline last collected. */
  private dto(a: AppWithDeployment): App {
    return this.answers.of(a);
  }
}

export const notFoundApp = () => new AppError('not_found', 'The app was not found');

const invalid = (field: string, message: string) => new AppError('validation_failed', 'The request body is invalid', [{ field, message }]);

function checkMinimums(size: { cpuMillis: number; memoryMb: number; diskMb: number }, minimum: { cpuMillis: number; memoryMb: number; diskMb: number }, prefix: string): void {
  const details = [];
  if (size.cpuMillis < minimum.cpuMillis) details.push({ field: `${prefix}/cpuMillis`, message: `must be at least ${minimum.cpuMillis}` });
  if (size.memoryMb < minimum.memoryMb) details.push({ field: `${prefix}/memoryMb`, message: `must be at least ${minimum.memoryMb}` });
  if (size.diskMb < minimum.diskMb) details.push({ field: `${prefix}/diskMb`, message: `must be at least ${minimum.diskMb}` });
  if (details.length) throw new AppError('validation_failed', 'The size is below the minimum for apps', details);
}

/** A DNS label of at most 30 characters from the app's name. */
export function appSlug(name: string): string {
  return (
    slugify(name)
      .slice(0, APP_SLUG_MAX)
      .replace(/-+$/, '') || 'app'
  );
}

/** A subdomain that differs from the natural one taken by another app: `<natural, cut>-<suffix>`, one DNS label. */
export function distinctSubdomain(natural: string, suffix: string): string {
  return `${natural.slice(0, DNS_LABEL_MAX - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

const SUBDOMAIN_TRIES = 6;
const randomSuffix = () => randomBytes(4).readUInt32BE(0).toString(36).padStart(6, '0').slice(-6);

/** `<app-slug>-<workspace-slug>`, cut to one DNS label (63 characters). */
export function subdomainOf(appSlug: string, workspaceSlug: string): string {
  return `${appSlug}-${workspaceSlug}`.slice(0, DNS_LABEL_MAX).replace(/-+$/, '');
}

const toEnvVariable = (v: EnvRecord): EnvVariable => ({ key: v.key, value: v.secret ? null : v.value, secret: v.secret, updatedAt: v.updatedAt.toISOString() });
