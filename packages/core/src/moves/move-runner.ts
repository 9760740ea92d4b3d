import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import { WORKSPACE_MOVE_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { NodeRecord, NodeRepository } from '../nodes/node.ports';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { AgentGateway, AgentTarget } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { AppJobStore, AppWithDeployment, EnvRepository } from '../apps/app.ports';
import { isInUse } from '../apps/deployment-state';
import { appHost, type AppsDomain } from '../apps/dto';
import { openEnvironment } from '../apps/environment';
import { isMoveFinished, moveSourcesOf, runMoveSteps, type MoveStep } from './move-state';
import type { AppToMove, MoveRecord, MovesGateway, MoveStore, MoveWorkspaceStore, SwitchedApp } from './move.ports';
import { targetRefusal } from './move.service';

/** How long the target's health check may take before the move gives up on it. */
const TARGET_HEALTH_TIMEOUT_MS = 5_000;

export interface MoveRunnerDeps {
  moves: MoveStore;
  workspaces: MoveWorkspaceStore;
  nodes: NodeRepository;
  agents: Pick<AgentGateway, 'health' | 'removeWorkspace' | 'removeApp' | 'rolloutApp' | 'appPower'>;
  /** Images and project folders from one server to the other. */
  transfer: MovesGateway;
  /** The app's record and current deployment, as a rollout needs them. */
  apps: Pick<AppJobStore, 'getById'>;
  env: EnvRepository;
  secrets: SecretBox;
  appsDomain: AppsDomain;
  /** Routes after the switch: the target's first (its own routes for the apps), then every server's (the `routes.sync` job's work). */
  routing: { syncRoutes(node: { id: string; name: string; grpcAddress: string }): Promise<unknown>; syncAllRoutes(): Promise<{ nodes: number }> };
  locks: ResourceLocks;
  jobs: JobQueue;
  clock: Clock;
  logger: Logger;
  readyTimeoutMs?: number;
  stopGraceMs?: number;
}

/** What the steps of one move share: read by `check`, used by the later steps. */
interface MoveContext {
  source: NodeRecord | null;
  target: NodeRecord | null;
  alreadySwitched: boolean;
  apps: AppToMove[];
  /** The app records as they were at the check (the source's containers are the current deployments'). */
  records: Map<string, AppWithDeployment>;
  /** What the target runs of each app once started. */
  started: Map<string, { containerId: string; hostPort: number | null }>;
}

/**
 * The work of the `workspace.move` job (issue 32): one move, under the workspace's lock and every one of its apps'
 * locks, step by step, each step's outcome recorded on the move's row (docs/decisions/0037-drain-and-moves.md):
 * check → copy-images → copy-folders (while the apps run) → start-target (each app's current deployment started
 * on the target and ready) → switch (the commit: the workspace's server and each current deployment's container, in
 * one transaction) → routes (every server's, at once) → stop-source → catch-up-folders (the source stopped) →
 * clean-source. Before the switch a failure or a cancel removes what the target got and leaves the source as it was.
 * A workspace with databases is refused at the check, saying so.
 */
export class MoveRunner {
  constructor(private readonly deps: MoveRunnerDeps) {}

  /**
   * One try of the move's job. A move already finished answers its row (a job delivered again does nothing). Waiting
   * for the workspace's lock can fail transiently (another move or job holds it too long): the error is thrown and the
   * queue tries again, the row still queued. Every failure after the claim ends the row with the reason instead.
   */
  async run(moveId: string): Promise<MoveRecord> {
    const first = await this.deps.moves.get(moveId);
    if (!first) throw new AppError('not_found', `No move has the id ${moveId}`);
    if (isMoveFinished(first.state)) return first;
    return this.deps.locks.hold('workspace', first.workspaceId, async () => {
      // Every app of the workspace is held too, before the claim (waiting for one is retried with the row still
      // queued): no deployment, power job or repair interleaves with the move. An app added meanwhile fails the switch.
      const appIds = (await this.deps.workspaces.appsToMove(first.workspaceId)).map((a) => a.appId).sort();
      return this.holdingApps(appIds, async () => {
        const claimed = await this.deps.moves.transition(moveId, moveSourcesOf('running').filter((s) => s !== 'running' || first.state === 'running'), 'running', {
          startedAt: this.deps.clock(),
          countAttempt: true,
        });
        if (!claimed) return (await this.deps.moves.get(moveId))!;
        const ended = await this.work(claimed);
        if (ended.reason === 'drain') await this.queueNextOfDrain(ended.fromNodeId);
        return ended;
      });
    });
  }

  private holdingApps<T>(appIds: string[], work: () => Promise<T>): Promise<T> {
    const [first, ...rest] = appIds;
    if (first === undefined) return work();
    return this.deps.locks.hold('app', first, () => this.holdingApps(rest, work));
  }

  private async work(move: MoveRecord): Promise<MoveRecord> {
    const log = this.deps.logger.child({ moveId: move.id, workspace: move.workspaceSlug, from: move.fromNode, to: move.toNode });
    let outcome;
    try {
      outcome = await runMoveSteps(this.steps(move), {
        record: (step) => this.deps.moves.appendStep(move.id, step),
        cancelled: async () => (await this.deps.moves.get(move.id))?.cancelRequestedAt != null,
        now: this.deps.clock,
      });
    } catch (e) {
      // Recording itself failed (PostgreSQL away): the row ends failed if it can be written at all.
      outcome = { state: 'failed' as const, error: `The move could not record its steps: ${(e as Error).message}` };
    }
    const finishedAt = this.deps.clock();
    const error = outcome.state === 'succeeded' ? (outcome.leftovers.length ? `Moved; left behind: ${outcome.leftovers.join('; ')}` : null) : outcome.error;
    const ended = await this.deps.moves.transition(move.id, ['running'], outcome.state, { error, finishedAt });
    if (outcome.state === 'succeeded') log.info({ leftovers: outcome.leftovers }, 'workspace moved');
    else log.warn({ state: outcome.state, err: error }, 'workspace not moved');
    return ended ?? (await this.deps.moves.get(move.id))!;
  }

  /** The steps of one move, sharing what `check` read. */
  private steps(move: MoveRecord): MoveStep[] {
    const { workspaces, nodes, agents, transfer } = this.deps;
    const ctx: MoveContext = { source: null, target: null, alreadySwitched: false, apps: [], records: new Map(), started: new Map() };
    const opId = (what: string) => `move-${move.id}-${what}`;
    const source = (): AgentTarget => ({ name: ctx.source!.name, grpcAddress: ctx.source!.grpcAddress });
    const target = (): AgentTarget => ({ name: ctx.target!.name, grpcAddress: ctx.target!.grpcAddress });
    const live = (appId: string) => {
      const app = ctx.records.get(appId);
      return app && isInUse(app.currentDeployment?.status) ? app.currentDeployment! : null;
    };
    /** Before the switch, or after an earlier try of this move switched already (then only what follows is left). */
    const skipIfSwitched = (what: string) =>
      ctx.alreadySwitched
        ? { sentence: `${what}: already done by an earlier try of this move`, skipped: true }
        : ctx.apps.length === 0
          ? { sentence: `${what}: the workspace has no apps`, skipped: true }
          : null;
    const copyFolders = async (what: string) => {
      let bytes = 0;
      for (const app of ctx.apps) {
        const deployment = live(app.appId);
        const record = ctx.records.get(app.appId)!;
        bytes += (await transfer.copyFolder(source(), target(), {
          operationId: opId(`${what}-${app.appId}`),
          workspaceId: move.workspaceId,
          appId: app.appId,
          diskMb: record.diskMb,
          seededImageRef: deployment?.imageRef ?? '',
        })).bytes;
      }
      return bytes;
    };
    return [
      {
        name: 'check',
        run: async () => {
          const ws = await workspaces.find(move.workspaceId);
          if (!ws) throw new Error(`The workspace ${move.workspaceSlug} was deleted`);
          ctx.source = await nodes.get(move.fromNodeId);
          ctx.target = await nodes.get(move.toNodeId);
          ctx.apps = await workspaces.appsToMove(move.workspaceId);
          for (const app of ctx.apps) {
            const record = await this.deps.apps.getById(app.appId);
            if (record) ctx.records.set(app.appId, record);
          }
          // An earlier try of this move (its worker died) may have switched it already: only what follows is left.
          ctx.alreadySwitched = ws.nodeId === move.toNodeId && move.steps.some((s) => s.step === 'switch' && s.outcome === 'done');
          if (ctx.alreadySwitched) return { sentence: `Already on ${move.toNode} (switched by an earlier try of this move)`, skipped: true };
          if (ws.nodeId !== move.fromNodeId) throw new Error(`The workspace is no longer on ${move.fromNode}`);
          if (!ctx.source) throw new Error(`The server ${move.fromNode} is no longer enrolled`);
          if (!ctx.target) throw new Error(`The server ${move.toNode} is no longer enrolled`);
          const refused = targetRefusal(ctx.target, { id: move.fromNodeId, name: move.fromNode });
          if (refused) throw new Error(refused);
          for (const [server, why] of [
            [ctx.target, 'the target'],
            ...(ctx.apps.length ? [[ctx.source, 'the source (its images and folders are copied from it)'] as const] : []),
          ] as const) {
            try {
              await agents.health({ name: server.name, grpcAddress: server.grpcAddress }, TARGET_HEALTH_TIMEOUT_MS);
            } catch (e) {
              throw new Error(`${server.name}, ${why}, did not answer its health check (${(e as Error).message})`, { cause: e });
            }
          }
          if (ws.databases > 0) {
            throw new Error(`The workspace holds ${plural(ws.databases, 'database')}; moving databases between servers is not built yet (issue 32): today a workspace with apps only moves`);
          }
          const busy = ctx.apps.filter((a) => a.busy).map((a) => ctx.records.get(a.appId)?.name ?? a.appId);
          if (busy.length) throw new Error(`A deployment of ${busy.join(', ')} is in progress; move the workspace once it has finished`);
          return { sentence: `${ctx.target.name} answers and can take the workspace (${plural(ctx.apps.length, 'app')}, no databases)` };
        },
      },
      {
        name: 'copy-images',
        run: async () => {
          const done = skipIfSwitched('Images');
          if (done) return done;
          let bytes = 0;
          let images = 0;
          for (const app of ctx.apps.filter((a) => a.imageRefs.length > 0)) {
            const copied = await transfer.copyImages(source(), target(), { operationId: opId(`images-${app.appId}`), workspaceId: move.workspaceId, imageRefs: app.imageRefs });
            bytes += copied.bytes;
            images += app.imageRefs.length;
          }
          return { sentence: `${plural(images, 'image')} (current and rollback) of ${plural(ctx.apps.length, 'app')} copied to ${move.toNode}: ${mb(bytes)}` };
        },
        // Everything the target got of each app (containers, image tags, route, project folder) goes.
        undo: async () => {
          for (const app of ctx.apps) await agents.removeApp(target(), { operationId: opId(`undo-${app.appId}`), workspaceId: move.workspaceId, appId: app.appId });
          return `Removed from ${move.toNode} what it got of ${plural(ctx.apps.length, 'app')}`;
        },
      },
      {
        name: 'copy-folders',
        run: async () => skipIfSwitched('Project folders') ?? { sentence: `Project folders copied while the apps run: ${mb(await copyFolders('folders'))}` },
      },
      {
        name: 'start-target',
        run: async () => {
          const done = skipIfSwitched('Target containers');
          if (done) return done;
          for (const app of ctx.apps) {
            const record = ctx.records.get(app.appId)!;
            const deployment = live(app.appId);
            if (!deployment || record.desiredState !== 'running') continue;
            ctx.started.set(app.appId, await this.startOnTarget(target(), record, deployment.id, deployment.imageRef, deployment.port, opId(`start-${app.appId}`)));
          }
          return { sentence: `${plural(ctx.started.size, 'app')} started on ${move.toNode} and ready (${plural(ctx.apps.length - ctx.started.size, 'app')} not running: nothing to start)` };
        },
      },
      {
        name: 'switch',
        commit: true,
        run: async () => {
          if (ctx.alreadySwitched) return { sentence: `Already on ${move.toNode}`, skipped: true };
          const apps: SwitchedApp[] = ctx.apps.map((a) => {
            const started = ctx.started.get(a.appId);
            return { appId: a.appId, deploymentId: a.deploymentId, containerId: started?.containerId ?? null, hostPort: started?.hostPort ?? null };
          });
          if (!(await workspaces.switchServer(move.workspaceId, move.fromNodeId, move.toNodeId, apps))) {
            throw new Error('The workspace changed while it was being moved (an app, a deployment or a database was added, or it was deleted or moved); nothing was switched');
          }
          return { sentence: `The workspace and its ${plural(ctx.apps.length, 'app')} are on ${move.toNode} now` };
        },
      },
      {
        name: 'routes',
        run: async () => {
          // The target first: its own routes for the apps are in place before any other server forwards to it.
          if (ctx.target) await this.deps.routing.syncRoutes(ctx.target);
          const synced = await this.deps.routing.syncAllRoutes();
          return { sentence: `${plural(synced.nodes, 'server')} route the workspace's apps to ${move.toNode}` };
        },
      },
      {
        name: 'stop-source',
        run: async () => {
          if (!ctx.source) return { sentence: `${move.fromNode} is no longer enrolled: nothing to stop there`, skipped: true };
          if (ctx.apps.length === 0) return { sentence: 'The workspace has no apps', skipped: true };
          let stopped = 0;
          for (const app of ctx.apps) {
            // Only what the target now runs in its place; anything else of the source goes with the cleanup.
            const deployment = live(app.appId);
            if (!deployment?.containerId || !ctx.started.has(app.appId)) continue;
            await agents.appPower(source(), {
              operationId: opId(`stop-${app.appId}`),
              workspaceId: move.workspaceId,
              appId: app.appId,
              action: 'stop',
              containerId: deployment.containerId,
              route: null,
              stopGraceMs: this.deps.stopGraceMs ?? 10_000,
            });
            stopped++;
          }
          return { sentence: `${plural(stopped, 'container')} stopped on ${move.fromNode}` };
        },
      },
      {
        name: 'catch-up-folders',
        run: async () => {
          if (!ctx.source || ctx.apps.length === 0) return { sentence: 'No project folder to catch up', skipped: true };
          return { sentence: `Project folders caught up after the source stopped: ${mb(await copyFolders('catch-up'))}` };
        },
      },
      {
        name: 'clean-source',
        run: async () => {
          if (!ctx.source) return { sentence: `${move.fromNode} is no longer enrolled: nothing to clean there`, skipped: true };
          const removed = await agents.removeWorkspace(source(), { operationId: opId('source'), workspaceId: move.workspaceId, appIds: await workspaces.appIds(move.workspaceId) });
          return { sentence: `Removed from ${ctx.source.name}: ${plural(removed.containers, 'container')}, ${plural(removed.images, 'image')}, ${plural(removed.networks, 'network')}` };
        },
      },
    ];
  }

  /** The app's current deployment started on the target from its copied image, as its rollout started it, and ready. */
  private async startOnTarget(node: AgentTarget, app: AppWithDeployment, deploymentId: string, imageRef: string | null, port: number | null, operationId: string) {
    if (!imageRef) throw new Error(`The current deployment of ${app.name} has no image on the server`);
    const result = await this.deps.agents.rolloutApp(
      node,
      {
        operationId,
        workspaceId: app.workspaceId,
        appId: app.id,
        deploymentId,
        imageRef,
        cpuMillis: app.cpuMillis,
        memoryMb: app.memoryMb,
        port: app.kind === 'web' ? (port ?? 0) : 0,
        env: await openEnvironment(this.deps.env, this.deps.secrets, { workspaceId: app.workspaceId, appId: app.id }),
        healthPath: app.healthPath ?? '',
        routeHost: app.kind === 'web' && app.subdomain && port ? appHost(app.subdomain, this.deps.appsDomain) : '',
        readyTimeoutMs: this.deps.readyTimeoutMs ?? 60_000,
        stopGraceMs: this.deps.stopGraceMs ?? 10_000,
        pruneImageRefs: [],
        diskMb: app.diskMb,
      },
      () => undefined,
    );
    return { containerId: result.containerId, hostPort: result.hostPort || null };
  }

  /** A drain runs its moves one at a time: the next queued one of the same source, once this one ended. */
  private async queueNextOfDrain(fromNodeId: string): Promise<void> {
    const next = await this.deps.moves.nextOfDrain(fromNodeId);
    if (next) await this.deps.jobs.enqueue(WORKSPACE_MOVE_JOB, { moveId: next.id }, { jobId: next.id });
  }

  /** The worker's last word on a move whose job failed for good: the row fails with the reason, unless it ended. */
  async failedForGood(moveId: string, reason: string): Promise<void> {
    const row = await this.deps.moves.transition(moveId, moveSourcesOf('failed'), 'failed', { error: reason, finishedAt: this.deps.clock() });
    if (row?.reason === 'drain') await this.queueNextOfDrain(row.fromNodeId);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
