import type { CreateWorkspaceRequest, Minimums, Role, UpdateWorkspaceRequest, Workspace } from '@slipway/contracts';
import type { Actor, WorkspaceAccess, WorkspaceRecord } from '../auth/actor';
import { AppError } from '../errors';
import { WORKSPACE_TEARDOWN_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { PlanRepository, WorkspaceRepository } from '../ports/repositories';
import { placeWorkspace, type PlacementNeed } from './placement';
import { slugCandidate, slugify } from './slug';

const DAY_MS = 24 * 3600 * 1000;
export const TRIAL_DAYS = 14;
export const GRACE_DAYS = 7;
export const TRIAL_PLAN_SLUG = 'trial';
const SLUG_ATTEMPTS = 12;

export const toWorkspace = (w: WorkspaceRecord, role: Role): Workspace => ({
  id: w.id,
  name: w.name,
  slug: w.slug,
  role,
  suspended: w.suspendedAt !== null,
  server: w.nodeUnreachableSince ? { status: 'unreachable', since: w.nodeUnreachableSince.toISOString() } : { status: 'reachable', since: null },
  createdAt: w.createdAt.toISOString(),
});

/** The plan's smallest app: what a new workspace needs room for. */
export function firstAppNeed(minimums: unknown): PlacementNeed {
  const app = (minimums as Partial<Minimums> | null)?.app;
  return { cpuMillis: app?.cpuMillis ?? 0, memoryMb: app?.memoryMb ?? 0, diskMb: app?.diskMb ?? 0 };
}

export class WorkspaceService {
  constructor(
    private readonly deps: {
      workspaces: WorkspaceRepository;
      plans: PlanRepository;
      jobs: JobQueue;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** The caller's workspaces; a token sees only its own one. */
  async list(actor: Actor): Promise<Workspace[]> {
    if (actor.kind === 'token') {
      const w = await this.deps.workspaces.findForMember({ workspaceId: actor.workspaceId, userId: actor.userId });
      return w ? [toWorkspace(w, w.role)] : [];
    }
    const all = await this.deps.workspaces.listForUser(actor.userId);
    return all.map((w) => toWorkspace(w, w.role));
  }

  /**
   * On the trial plan, placed on the online, uncordoned server with the most free room for the plan's first app
   * (placement.ts); the caller becomes owner. No such server: 503 `node_unavailable`; none with room: 503 `no_capacity`
   * naming the resource.
   */
  async create(actor: Actor, input: CreateWorkspaceRequest): Promise<Workspace> {
    if (actor.kind !== 'session') throw new AppError('session_required', 'Creating a workspace needs the session cookie');
    const plan = await this.deps.plans.newest(TRIAL_PLAN_SLUG);
    if (!plan) throw new Error('The trial plan is missing: the plan catalog was not seeded');
    const placed = placeWorkspace(await this.deps.workspaces.onlineNodes(), firstAppNeed(plan.minimums));
    if (placed.node === null && placed.reason === 'no_server') throw new AppError('node_unavailable', noServerSentence(placed.cordoned));
    if (placed.node === null) {
      const { resource, requested, available } = placed;
      const unit = resource === 'cpu' ? 'millicores of vCPU' : resource === 'memory' ? 'MB of memory' : 'MB of disk';
      throw new AppError('no_capacity', `No server has room for a new workspace: its first app needs ${requested} ${unit} and the roomiest server has ${available} free`, [
        { resource, requested, available },
      ]);
    }
    const node = placed.node;
    const now = this.deps.clock().getTime();
    const name = input.name.trim();
    const base = slugify(name);
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const created = await this.deps.workspaces.create({
        name,
        slug: slugCandidate(base, attempt),
        ownerId: actor.userId,
        planId: plan.id,
        trialEndsAt: new Date(now + TRIAL_DAYS * DAY_MS),
        graceEndsAt: new Date(now + (TRIAL_DAYS + GRACE_DAYS) * DAY_MS),
        nodeId: node.id,
        createdAt: new Date(now),
      });
      if (created) return toWorkspace(created, 'owner');
    }
    throw new AppError('name_taken', 'No free slug could be derived from this name; choose another name');
  }

  get(access: WorkspaceAccess): Workspace {
    return toWorkspace(access.workspace, access.role);
  }

  async update(access: WorkspaceAccess, input: UpdateWorkspaceRequest): Promise<Workspace> {
    const changes = { ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.slug !== undefined ? { slug: input.slug } : {}) };
    const updated = await this.deps.workspaces.update({ workspaceId: access.workspace.id }, changes);
    if (updated === 'slug_taken') throw new AppError('name_taken', 'This slug is already used by another workspace');
    if (!updated) throw new AppError('not_found', 'The workspace was not found');
    return toWorkspace(updated, access.role);
  }

  /**
   * Marks the workspace deleted (it disappears from the API at once) and records a teardown Operation in the same
   * transaction, then queues the teardown job with the operation's id. Should queueing fail, the operation row
   * stays `queued` and can be re-queued; the deletion itself stands.
   */
  async delete(access: WorkspaceAccess): Promise<void> {
    const workspaceId = access.workspace.id;
    const marked = await this.deps.workspaces.markDeleted({ workspaceId }, { kind: WORKSPACE_TEARDOWN_JOB }, this.deps.clock());
    if (!marked) throw new AppError('not_found', 'The workspace was not found');
    try {
      await this.deps.jobs.enqueue(WORKSPACE_TEARDOWN_JOB, { operationId: marked.operationId }, { jobId: marked.operationId });
    } catch (err) {
      this.deps.logger.error({ err, workspaceId, operationId: marked.operationId }, 'could not queue the workspace teardown');
    }
  }
}

/** Why no server takes a new workspace, in words: none online, or every online one cordoned by the operator. */
export function noServerSentence(cordoned: number): string {
  if (cordoned === 0) return 'No server is online and open to new workspaces';
  return cordoned === 1
    ? 'No server is open to new workspaces: the only online server is cordoned by the operator (it takes no new workspace)'
    : `No server is open to new workspaces: all ${cordoned} online servers are cordoned by the operator (they take no new workspace)`;
}
