import pLimit from 'p-limit';
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
import { ensureInputOf } from '../databases/database-converge.service';
import type { DatabaseAgent, DatabaseCertificates, DatabaseJobStore, DatabaseRecord } from '../databases/database.ports';
import type { DomainCertificateStorage, StoredCertificate } from '../domains/domain.ports';
import { isMoveFinished, moveSourcesOf, runMoveSteps, sentenceOf, type MoveStep } from './move-state';
import type { AppToMove, MoveRecord, MovesGateway, MoveStore, MoveWorkspaceStore, SwitchedApp, SwitchedDatabase } from './move.ports';
import { targetRefusal } from './move.service';

/** How long the target's health check may take before the move gives up on it. */
const TARGET_HEALTH_TIMEOUT_MS = 5_000;
/** Public ports of databases (databases.proto DatabasePublicAccess). */
const PUBLIC_PORTS = { min: 20_000, max: 20_999 } as const;
/** Passes of a database's changes while it runs, after its pre-copy; a pass of at most SMALL_PASS_BYTES is the last. */
const LIVE_PASSES = 2;
const SMALL_PASS_BYTES = 16 * 1024 * 1024;
/**
 * Apps whose project folders are copied, which are started on the target, or stopped on the source, at once: each
 * waits on Docker, a disk image or the app's readiness more than on the CPU; bounded so a workspace of many apps does
 * not start them all at once.
 */
const APPS_AT_ONCE = 3;
/** Blocks of a data folder's signature: 64 KiB, larger for big folders so a signature stays about 2 MB (131,072 blocks). */
const blockBytesFor = (bytes: number) => Math.min(16 * 1024 * 1024, Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(Math.max(1, bytes) / 131_072))));

/** What a database's pre-copy left on the target: its bytes, time, passes, and the target's signature (null: no data). */
interface PreCopy {
  /** Bytes sent (compressed), and unpacked on the target (about the data folder's size). */
  bytes: number;
  unpacked: number;
  ms: number;
  passes: number[];
  signature: Uint8Array | null;
}

/** Statuses of a database whose own job is under way (it is moved once that job ended). */
const DATABASE_BUSY: readonly string[] = ['provisioning', 'updating', 'restoring', 'deleting'];

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
  /** The workspace's managed databases: their rows, their agents' service, the servers' database certificates. */
  databases: Pick<DatabaseJobStore, 'listOfWorkspace'>;
  databaseAgent: Pick<DatabaseAgent, 'ensureDatabase' | 'stopDatabase' | 'removeDatabase'>;
  certificates: Pick<DatabaseCertificates, 'serverCertificate'>;
  secrets: SecretBox;
  appsDomain: AppsDomain;
  /** Routes after the switch: the target's first (its own routes for the apps), then every server's (the `routes.sync` job's work). */
  routing: { syncRoutes(node: { id: string; name: string; grpcAddress: string }): Promise<unknown>; syncAllRoutes(): Promise<{ nodes: number }> };
  /**
   * Custom domains' routes of every server (the `domains.sweep` job's work, certificates relayed from their owners):
   * run right after the apps' routes so the domains follow the workspace at once rather than at the next sweep.
   */
  domains?: { sweep(): Promise<unknown> };
  /**
   * The custom domains' certificates, carried from the source's Caddy storage into the target's before the switch: the
   * target serves and later renews the same certificates, no new ACME order (docs/decisions/0037-drain-and-moves.md).
   * Absent: the target orders its own once it owns the domains.
   */
  domainCertificates?: DomainCertificateStorage;
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
  /** The live databases as they were at the check, and the public port each gets on the target. */
  databases: DatabaseRecord[];
  publicPorts: Map<string, number | null>;
  /** The databases whose backup files are on the source (deleted databases' too). */
  backupFolders: { databaseId: string; backups: number }[];
  /** Databases stopped on the source, and those the target got data of (what an undo reverses). */
  stoppedOnSource: DatabaseRecord[];
  onTarget: DatabaseRecord[];
  /** When the first database was stopped on the source (the apps' write gap starts there). */
  databasesStoppedAt: number | null;
  /** The workspace's custom domains, and the certificates the target got of them (what an undo removes). */
  hostnames: string[];
  certificates: StoredCertificate[];
}

/**
 * The work of the `workspace.move` job (issue 32): one move, under the workspace's lock and every one of its apps'
 * locks, step by step, each step's outcome recorded on the move's row (docs/decisions/0037-drain-and-moves.md):
 * check → copy-images → copy-folders (while the apps run) → copy-certificates (the custom domains', into the
 * target's Caddy storage) → start-target (each app's current deployment started
 * on the target and ready) → switch (the commit: the workspace's server and each current deployment's container, in
 * one transaction) → routes (every server's, at once) → stop-source → catch-up-folders (the source stopped) →
 * clean-source. The backups' copy and the databases' pre-copies (while they run) begin with copy-images, beside it and
 * the apps' start, and are joined by copy-backups and move-databases, whose turn stops the databases. Before the switch
 * a failure or a cancel stops and waits for that work, removes what the target got and leaves the source as it was.
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
      // All on one connection (holdAll): ten apps must not take ten of the lock pool's connections.
      const appIds = (await this.deps.workspaces.appsToMove(first.workspaceId)).map((a) => a.appId).sort();
      // …and every live database (no backup, restore or converge of one while its data moves).
      const databaseIds = (await this.deps.databases.listOfWorkspace(first.workspaceId)).filter((d) => !d.deletedAt).map((d) => d.id).sort();
      const held = [...appIds.map((id) => ['app', id] as const), ...databaseIds.map((id) => ['database', id] as const)];
      return this.deps.locks.holdAll(held, async () => {
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
    const ctx: MoveContext = {
      source: null,
      target: null,
      alreadySwitched: false,
      apps: [],
      records: new Map(),
      started: new Map(),
      databases: [],
      publicPorts: new Map(),
      backupFolders: [],
      stoppedOnSource: [],
      onTarget: [],
      databasesStoppedAt: null,
      hostnames: [],
      certificates: [],
    };
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
      const copied = await eachBounded(ctx.apps, async (app) => {
        const deployment = live(app.appId);
        const record = ctx.records.get(app.appId)!;
        return (await transfer.copyFolder(source(), target(), {
          operationId: opId(`${what}-${app.appId}`),
          workspaceId: move.workspaceId,
          appId: app.appId,
          diskMb: record.diskMb,
          seededImageRef: deployment?.imageRef ?? '',
        })).bytes;
      });
      return copied.reduce((t, b) => t + b, 0);
    };
    // Begun beside the images' copy and the apps' start (their steps' `ahead`), joined by their own steps.
    let backupsCopy: Promise<{ bytes: number; ms: number }> | null = null;
    let preCopies: Promise<Map<string, PreCopy>> | null = null;
    const copyBackups = async (signal?: AbortSignal) => {
      const t0 = Date.now();
      let bytes = 0;
      for (const b of ctx.backupFolders) {
        signal?.throwIfAborted();
        bytes += (await transfer.copyDatabaseFolder(source(), target(), { operationId: opId(`backups-${b.databaseId}`), workspaceId: move.workspaceId, databaseId: b.databaseId, folder: 'backups', signal })).bytes;
      }
      return { bytes, ms: Date.now() - t0 };
    };
    const removeCopiedBackups = async () => {
      await transfer.removeBackupFolders(target(), ctx.backupFolders.map((b) => b.databaseId));
      return `Removed the copied backups from ${move.toNode}`;
    };
    const preCopyAll = async (signal?: AbortSignal) => {
      const copies = new Map<string, PreCopy>();
      for (const db of ctx.databases) {
        signal?.throwIfAborted();
        copies.set(db.id, await this.preCopyDatabase(db, ctx, opId, signal));
      }
      return copies;
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
          ctx.databases = (await this.deps.databases.listOfWorkspace(move.workspaceId)).filter((d) => !d.deletedAt);
          ctx.backupFolders = await workspaces.backupFoldersOn(move.workspaceId, move.fromNodeId);
          ctx.hostnames = await workspaces.domainHostnames(move.workspaceId);
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
            ...(ctx.apps.length || ctx.databases.length || ctx.backupFolders.length ? [[ctx.source, 'the source (its images and folders are copied from it)'] as const] : []),
          ] as const) {
            try {
              await agents.health({ name: server.name, grpcAddress: server.grpcAddress }, TARGET_HEALTH_TIMEOUT_MS);
            } catch (e) {
              throw new Error(`${server.name}, ${why}, did not answer its health check (${(e as Error).message})`, { cause: e });
            }
          }
          const busy = ctx.apps.filter((a) => a.busy).map((a) => ctx.records.get(a.appId)?.name ?? a.appId);
          if (busy.length) throw new Error(`A deployment of ${busy.join(', ')} is in progress; move the workspace once it has finished`);
          const busyDatabases = ctx.databases.filter((d) => DATABASE_BUSY.includes(d.status)).map((d) => `${d.name} (${d.status})`);
          if (busyDatabases.length) throw new Error(`A change of ${busyDatabases.join(', ')} is in progress; move the workspace once it has finished`);
          // An engine the target said it cannot run refuses the move before any database stops.
          const missing = ctx.databases.map((d) => ctx.target!.databaseEngines?.engines.find((e) => e.engine === d.engine)).filter((e) => e && !e.available);
          if (missing[0]) throw new Error(`${ctx.target.name} cannot run ${missing[0].engine}: its image ${missing[0].image} is not there (${missing[0].hint})`);
          // Public ports: the same on the target when free there, else the lowest free one (the step says which).
          const taken = new Set(await workspaces.publicPortsOn(ctx.target.id));
          for (const d of ctx.databases) {
            if (!d.publicEnabled || !d.publicPort) {
              ctx.publicPorts.set(d.id, d.publicEnabled ? null : d.publicPort);
              continue;
            }
            let port: number | null = d.publicPort;
            if (taken.has(port)) {
              port = null;
              for (let p = PUBLIC_PORTS.min; p <= PUBLIC_PORTS.max && port === null; p++) if (!taken.has(p)) port = p;
              if (port === null) throw new Error(`Every public database port of ${ctx.target.name} is taken; ${d.name} could not keep public access there`);
            }
            taken.add(port);
            ctx.publicPorts.set(d.id, port);
          }
          const portChanges = ctx.databases.filter((d) => d.publicEnabled && d.publicPort && ctx.publicPorts.get(d.id) !== d.publicPort).map((d) => `${d.name}'s public port becomes ${ctx.publicPorts.get(d.id)} (${d.publicPort} is taken there)`);
          return {
            sentence: `${ctx.target.name} answers and can take the workspace (${plural(ctx.apps.length, 'app')}, ${plural(ctx.databases.length, 'database')}, backups of ${plural(ctx.backupFolders.length, 'database')})${portChanges.length ? `; ${portChanges.join('; ')}` : ''}`,
          };
        },
      },
      {
        name: 'copy-images',
        run: async () => {
          const done = skipIfSwitched('Images');
          if (done) return done;
          // Every app's tags in one `docker save`: the layers apps share (their base image, most of each) cross once,
          // not once per app (ten apps of one base sent it ten times).
          const imageRefs = ctx.apps.flatMap((a) => a.imageRefs);
          const images = imageRefs.length;
          const bytes = images ? (await transfer.copyImages(source(), target(), { operationId: opId('images'), workspaceId: move.workspaceId, imageRefs })).bytes : 0;
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
        name: 'copy-certificates',
        run: async () => {
          const done = skipIfSwitched('Certificates');
          if (done) return done;
          const storage = this.deps.domainCertificates;
          if (!storage || ctx.hostnames.length === 0) return { sentence: 'The workspace has no custom domains', skipped: true };
          // Into the target's storage before the switch: Caddy there finds them the moment it manages the names. A
          // certificate can be ordered again, so one that cannot be carried (an older agent, a storage refusing it)
          // does not stop the move: the step says so and the target orders its own once it owns the domain.
          let found: StoredCertificate[];
          try {
            found = await storage.exportCertificates(source(), ctx.hostnames);
          } catch (e) {
            return { sentence: `The custom domains' certificates could not be read on ${move.fromNode} (${sentenceOf(e)}): ${move.toNode} orders its own once it owns them` };
          }
          try {
            if (found.length) await storage.importCertificates(target(), found);
          } catch (e) {
            return { sentence: `The custom domains' certificates could not be stored on ${move.toNode} (${sentenceOf(e)}): it orders its own once it owns them` };
          }
          ctx.certificates = found;
          const without = ctx.hostnames.filter((h) => !ctx.certificates.some((c) => c.hostname === h));
          return {
            sentence:
              `${plural(ctx.certificates.length, 'custom-domain certificate')} copied into ${move.toNode}'s certificate storage (served and renewed there from the switch, no new order)` +
              (without.length ? `; none issued on ${move.fromNode} for ${without.join(', ')} (${move.toNode} orders it)` : ''),
          };
        },
        undo: async () => {
          if (!this.deps.domainCertificates || ctx.certificates.length === 0) return 'No certificate to remove from the target';
          await this.deps.domainCertificates.removeCertificates(target(), ctx.certificates.map((c) => c.hostname));
          return `Removed the copied certificates from ${move.toNode}`;
        },
      },
      {
        name: 'start-target',
        run: async () => {
          const done = skipIfSwitched('Target containers');
          if (done) return done;
          const toStart = ctx.apps.filter((a) => live(a.appId) && ctx.records.get(a.appId)!.desiredState === 'running');
          await eachBounded(toStart, async (app) => {
            const deployment = live(app.appId)!;
            ctx.started.set(app.appId, await this.startOnTarget(target(), ctx.records.get(app.appId)!, deployment.id, deployment.imageRef, deployment.port, opId(`start-${app.appId}`)));
          });
          return { sentence: `${plural(ctx.started.size, 'app')} started on ${move.toNode} and ready (${plural(ctx.apps.length - ctx.started.size, 'app')} not running: nothing to start)` };
        },
      },
      {
        name: 'copy-backups',
        // Begun with the images' copy: the backup files do not change with the apps, and they cross the same links.
        ahead: {
          from: 'copy-images',
          begin: (signal) => {
            if (ctx.alreadySwitched || ctx.backupFolders.length === 0) return null;
            backupsCopy = copyBackups(signal);
            return backupsCopy;
          },
        },
        run: async () => {
          if (ctx.alreadySwitched) return { sentence: 'Backups: already done by an earlier try of this move', skipped: true };
          if (ctx.backupFolders.length === 0) return { sentence: 'No backup files on the source', skipped: true };
          let copied: { bytes: number; ms: number };
          try {
            copied = await (backupsCopy ?? copyBackups());
          } catch (e) {
            // A failing step's undo is not called: what it copied is removed here.
            const removed = await removeCopiedBackups().catch((u: unknown) => `the copied backups could not be removed from ${move.toNode} (${sentenceOf(u)})`);
            throw new Error(`${sentenceOf(e)}; ${removed}`, { cause: e });
          }
          const files = ctx.backupFolders.reduce((t, b) => t + b.backups, 0);
          return { sentence: `${plural(files, 'backup')} of ${plural(ctx.backupFolders.length, 'database')} copied to ${move.toNode}: ${mb(copied.bytes)} sent in ${seconds(copied.ms)}` };
        },
        undo: removeCopiedBackups,
      },
      {
        name: 'move-databases',
        // The pre-copies (while the engines run) begin with the images' copy; the stops come only at this step's turn.
        ahead: {
          from: 'copy-images',
          begin: (signal) => {
            if (ctx.alreadySwitched || ctx.databases.length === 0) return null;
            preCopies = preCopyAll(signal);
            return preCopies;
          },
        },
        run: async () => {
          if (ctx.alreadySwitched) return { sentence: 'Databases: already done by an earlier try of this move', skipped: true };
          if (ctx.databases.length === 0) return { sentence: 'The workspace has no databases', skipped: true };
          const lines: string[] = [];
          try {
            // While the engines run: each data folder copied whole, then passes of what changed since (decision 0037);
            // begun beside the images' copy and the apps' start, joined here.
            const copies = await (preCopies ?? preCopyAll());
            // Then one at a time: stopped on the source, only what changed since the last pass copied, started on the target.
            for (const db of ctx.databases) lines.push(await this.moveDatabase(db, copies.get(db.id)!, ctx, opId));
          } catch (e) {
            // This step's own half-done work is reversed here (a failing step's undo is not called).
            throw new Error(`${sentenceOf(e)}; ${await this.undoDatabases(ctx, opId)}`, { cause: e });
          }
          return { sentence: `Stopped on ${move.fromNode}, copied and started on ${move.toNode} with their credentials: ${lines.join('; ')}` };
        },
        undo: () => this.undoDatabases(ctx, opId),
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
          const databases: SwitchedDatabase[] = ctx.databases.map((d) => ({ databaseId: d.id, publicPort: ctx.publicPorts.get(d.id) ?? null }));
          const event = `Moved with its workspace from server ${move.fromNode} to server ${move.toNode}${move.reason === 'drain' ? ` (${move.fromNode} is being emptied by the platform's operator)` : " by the platform's operator"}`;
          if (!(await workspaces.switchServer(move.workspaceId, move.fromNodeId, move.toNodeId, apps, databases, event))) {
            throw new Error('The workspace changed while it was being moved (an app, a deployment or a database was added, or it was deleted or moved); nothing was switched');
          }
          return { sentence: `The workspace, its ${plural(ctx.apps.length, 'app')} and ${plural(ctx.databases.length, 'database')} are on ${move.toNode} now` };
        },
      },
      {
        name: 'routes',
        run: async () => {
          // The target first: its own routes for the apps are in place before any other server forwards to it.
          if (ctx.target) await this.deps.routing.syncRoutes(ctx.target);
          const synced = await this.deps.routing.syncAllRoutes();
          await this.deps.domains?.sweep();
          // The apps' writes could not reach the databases from their stop on the source until the apps on the target
          // took the traffic (the target's apps reach them on its own network).
          const gap = ctx.databasesStoppedAt === null ? '' : `; the databases were out of the apps' reach for ${seconds(Date.now() - ctx.databasesStoppedAt)} (from their stop on ${move.fromNode})`;
          return { sentence: `${plural(synced.nodes, 'server')} route the workspace's apps to ${move.toNode}${gap}` };
        },
      },
      {
        name: 'stop-source',
        run: async () => {
          if (!ctx.source) return { sentence: `${move.fromNode} is no longer enrolled: nothing to stop there`, skipped: true };
          if (ctx.apps.length === 0) return { sentence: 'The workspace has no apps', skipped: true };
          // Only what the target now runs in its place; anything else of the source goes with the cleanup.
          const toStop = ctx.apps.filter((a) => live(a.appId)?.containerId && ctx.started.has(a.appId));
          await eachBounded(toStop, (app) =>
            agents.appPower(source(), {
              operationId: opId(`stop-${app.appId}`),
              workspaceId: move.workspaceId,
              appId: app.appId,
              action: 'stop',
              containerId: live(app.appId)!.containerId!,
              route: null,
              stopGraceMs: this.deps.stopGraceMs ?? 10_000,
            }),
          );
          return { sentence: `${plural(toStop.length, 'container')} stopped on ${move.fromNode}` };
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
          // RemoveWorkspace erases the databases' containers, public ports and data there too.
          const removed = await agents.removeWorkspace(source(), { operationId: opId('source'), workspaceId: move.workspaceId, appIds: await workspaces.appIds(move.workspaceId) });
          // The databases' own folders too: a try of the move run again after its switch no longer finds the backups
          // on the source in the rows (they were switched), but their files are still there.
          const folders = [...new Set([...ctx.backupFolders.map((b) => b.databaseId), ...ctx.databases.map((d) => d.id)])];
          const backups = folders.length ? (await transfer.removeBackupFolders(source(), folders)).removed : 0;
          // The custom domains' certificates in its Caddy storage (it serves them as relayed ones from now on, like
          // every server that does not own them); one it still owns (its routes not synced yet) is kept, said so.
          const hostnames = this.deps.domainCertificates ? await workspaces.domainHostnames(move.workspaceId) : [];
          const certs = hostnames.length ? await this.deps.domainCertificates!.removeCertificates(source(), hostnames) : null;
          return {
            sentence:
              `Removed from ${ctx.source.name}: ${plural(removed.containers, 'container')}, ${plural(removed.images, 'image')}, ${plural(removed.networks, 'network')}, ${plural(ctx.databases.length, 'database')}' data, ${plural(backups, 'backup folder')}` +
              (certs ? `, ${plural(certs.removed, 'stored certificate')}` : '') +
              (certs?.kept.length ? `; kept the certificates of ${certs.kept.join(', ')} (${ctx.source.name} still routes them as their owner)` : ''),
          };
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

  /**
   * A database's data folder copied to the target while the engine runs on the source (its writes go on): the whole
   * folder first (a tar, possibly inconsistent: files change as they are read), then up to LIVE_PASSES block deltas of
   * what changed meanwhile (each smaller than the one before, as long as the writes are slower than the copy), and the
   * target's signature of what it now holds, which the final copy is made against once the engine is stopped.
   */
  private async preCopyDatabase(db: DatabaseRecord, ctx: MoveContext, opId: (what: string) => string, signal?: AbortSignal): Promise<PreCopy> {
    const { transfer } = this.deps;
    const source = { name: ctx.source!.name, grpcAddress: ctx.source!.grpcAddress };
    const target = { name: ctx.target!.name, grpcAddress: ctx.target!.grpcAddress };
    const t0 = Date.now();
    // Recorded before the copy: a copy cut halfway may have left a folder there.
    ctx.onTarget.push(db);
    const { bytes, unpacked } = await transfer.copyDatabaseFolder(source, target, { operationId: opId(`db-precopy-${db.id}`), workspaceId: db.workspaceId, databaseId: db.id, folder: 'data', live: true, signal });
    // No data on the source (an engine that never started): the final copy is the whole (empty) folder, as before.
    if (bytes === 0) return { bytes, unpacked: 0, ms: Date.now() - t0, passes: [], signature: null };
    // The block size from the folder's size (what was unpacked), not the bytes sent (compressed).
    const blockBytes = blockBytesFor(unpacked ?? bytes);
    let signature = await transfer.dataSignature(target, { databaseId: db.id, blockBytes });
    const passes: number[] = [];
    for (let pass = 1; pass <= LIVE_PASSES; pass++) {
      signal?.throwIfAborted();
      const delta = await transfer.copyDataDelta(source, target, { operationId: opId(`db-pass${pass}-${db.id}`), workspaceId: db.workspaceId, databaseId: db.id, signature, live: true, signal });
      passes.push(delta.bytes);
      signature = await transfer.dataSignature(target, { databaseId: db.id, blockBytes });
      if (delta.bytes <= SMALL_PASS_BYTES) break;
    }
    return { bytes, unpacked: unpacked ?? bytes, ms: Date.now() - t0, passes, signature };
  }

  /**
   * One database to the target, once pre-copied: stopped on the source (the engine's clean shutdown: writes are refused
   * from here), what changed since the last pass copied (the final, consistent copy: a block delta against the target's
   * signature), then started on the target from that data with the row's spec, password and allowlist, on its public
   * port there, and ready. Answers a sentence with its figures.
   */
  private async moveDatabase(db: DatabaseRecord, pre: PreCopy, ctx: MoveContext, opId: (what: string) => string): Promise<string> {
    const { transfer, databaseAgent } = this.deps;
    const source = { name: ctx.source!.name, grpcAddress: ctx.source!.grpcAddress };
    const target = { name: ctx.target!.name, grpcAddress: ctx.target!.grpcAddress };
    const t0 = Date.now();
    ctx.databasesStoppedAt ??= t0;
    ctx.stoppedOnSource.push(db);
    await databaseAgent.stopDatabase(source, { operationId: opId(`db-stop-${db.id}`), databaseId: db.id });
    const stopped = Date.now();
    const input = { operationId: opId(`db-data-${db.id}`), workspaceId: db.workspaceId, databaseId: db.id };
    const { bytes } = pre.signature
      ? await transfer.copyDataDelta(source, target, { ...input, signature: pre.signature, live: false })
      : await transfer.copyDatabaseFolder(source, target, { ...input, folder: 'data' });
    const copied = Date.now();
    const tls = await this.deps.certificates.serverCertificate(ctx.target!);
    const ensure = ensureInputOf(db, { operationId: opId(`db-start-${db.id}`), password: this.deps.secrets.open(db.passwordSealed), tls, publicPort: ctx.publicPorts.get(db.id) ?? null });
    const on = await databaseAgent.ensureDatabase(target, ensure);
    const wanted = db.desiredState === 'running' ? 'running' : 'stopped';
    if (on.state !== wanted) throw new Error(`${db.name} is ${on.state} on ${target.name}${on.message ? ` (${on.message})` : ''}`);
    const passes = pre.passes.length ? ` and ${plural(pre.passes.length, 'pass')} of its changes (${pre.passes.map(mb).join(', ')} sent)` : '';
    return (
      `${db.name} (${db.engine}, pre-copied while it ran: ${mb(pre.unpacked)} (${mb(pre.bytes)} sent)${passes} in ${seconds(pre.ms)}; ` +
      `stop ${seconds(stopped - t0)}, final copy ${mb(bytes)}${pre.signature ? ' of changes' : ''} sent ${seconds(copied - stopped)}, ${wanted === 'running' ? 'ready' : 'created'} ${seconds(Date.now() - copied)})`
    );
  }

  /**
   * Reverses what the databases' step did: the target's copies removed (container, listener, data), every database
   * stopped on the source started there again as it was. A source that cannot be started again fails the undo.
   */
  private async undoDatabases(ctx: MoveContext, opId: (what: string) => string): Promise<string> {
    const { databaseAgent } = this.deps;
    const said: string[] = [];
    for (const db of [...ctx.onTarget].reverse()) {
      try {
        await databaseAgent.removeDatabase({ name: ctx.target!.name, grpcAddress: ctx.target!.grpcAddress }, { operationId: opId(`db-undo-${db.id}`), databaseId: db.id });
      } catch (e) {
        said.push(`${db.name}'s copy on ${ctx.target!.name} could not be removed (${sentenceOf(e)})`);
      }
    }
    const failed: string[] = [];
    for (const db of ctx.stoppedOnSource) {
      try {
        const tls = await this.deps.certificates.serverCertificate(ctx.source!);
        const input = ensureInputOf(db, { operationId: opId(`db-restart-${db.id}`), password: this.deps.secrets.open(db.passwordSealed), tls });
        await databaseAgent.ensureDatabase({ name: ctx.source!.name, grpcAddress: ctx.source!.grpcAddress }, input);
      } catch (e) {
        failed.push(`${db.name} could not be started again on ${ctx.source!.name} (${sentenceOf(e)})`);
      }
    }
    ctx.onTarget = [];
    ctx.stoppedOnSource = [];
    if (failed.length) throw new Error([...failed, ...said].join('; '));
    return [`The databases run on ${ctx.source!.name} again`, ...said].join('; ');
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

/** An item `eachBounded` did not begin because another had failed. */
class NotBegun extends Error {}

/**
 * `work` for each item, APPS_AT_ONCE at a time; the results in the items' order. On a failure no further item is
 * begun, those under way are waited for (nothing still runs once it answers), then the first failure is thrown.
 */
async function eachBounded<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const limit = pLimit(APPS_AT_ONCE);
  let failing = false;
  const settled = await Promise.allSettled(
    items.map((item) =>
      limit(async () => {
        if (failing) throw new NotBegun();
        try {
          return await work(item);
        } catch (e) {
          failing = true;
          throw e;
        }
      }),
    ),
  );
  // The first item that failed by itself (those not begun after it failed said so too, later in the list or not).
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof NotBegun));
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<R>).value);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? 'es' : 's'}`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
