import { checkCidr, connectionUrl, DATABASE_ENGINE_FACTS as ENGINES, DATABASE_ENGINES as DATABASE_ENGINE_NAMES, type DatabaseEngine } from '@slipway/contracts';
import type { ConnectDatabaseRequest, CreateDatabaseRequest, Database, DatabaseConnection, DatabaseEngineInfo, Minimums, PutDatabasePublicRequest, ResourceEventList, UpdateDatabaseRequest } from '@slipway/contracts';
import { eventList, RESOURCE_EVENTS_LIMIT, type ResourceEventReader } from '../events/resource-events';
import type { WorkspaceAccess } from '../auth/actor';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { DATABASE_CONVERGE_JOB, DATABASE_ROTATE_JOB, DATABASE_TEARDOWN_JOB } from '../jobs';
import type { Logger } from '../logging';
import type { NodeRecord, NodeRepository } from '../nodes/node.ports';
import type { Clock } from '../ports/clock';
import type { JobQueue } from '../ports/jobs';
import type { PlanRepository } from '../ports/repositories';
import type { QuotaService } from '../quota/quota.service';
import { slugify } from '../workspaces/slug';
import type { DatabaseAgent, DatabaseIntent, DatabaseRecord, DatabaseRepository, DatabaseScope, DatabaseStatus } from './database.ports';
import { newDatabasePassword } from './engines';

/** Where clients download the CA certificate of public ports. */
export const DATABASE_CA_PATH = '/v1/database-ca.pem';
/** How long a create waits for the server to say whether it has the engine's image. */
const ENGINES_TIMEOUT_MS = 5_000;
const SLUG_MAX = 30;

/** The status message of a database whose password is being rotated (its engine may have either password meanwhile). */
export const ROTATING_MESSAGE = 'rotating the password';
/** How long `rotate-password` waits for the engine to have the new password before it answers. */
const ROTATE_WAIT_MS = 30_000;

/** Work is running on the database: a second resize or rotation waits for it (409 database_busy). */
const BUSY: readonly DatabaseStatus[] = ['provisioning', 'updating', 'restoring'];
/** Every status but deleting: intents that converge (stop, start, public access) are accepted in all of them. */
const LIVE: readonly DatabaseStatus[] = ['provisioning', 'running', 'stopped', 'updating', 'restoring', 'failed'];

export interface DatabaseServiceDeps {
  databases: DatabaseRepository;
  plans: PlanRepository;
  quota: QuotaService;
  nodes: NodeRepository;
  jobs: JobQueue;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  /** The agents' Databases service; without it creation answers 503 node_unavailable. */
  agents?: DatabaseAgent;
  /** The databases' events (a move to another server); without it the list is empty. */
  events?: ResourceEventReader;
}

/**
 * Databases, request side: creation with a reservation (cpu, memory, disk) after the server said it can run the
 * engine; reads; rename and resize (reserved at once, then the container is recreated on its data by a job); stop,
 * start, public access, rotation and deletion as intents (generation bump, desired state and the Operation row in
 * one transaction; the job reads the row when it runs, so the intent accepted last wins); connect and the connection.
 */
export class DatabaseService {
  constructor(private readonly deps: DatabaseServiceDeps) {}

  /**
   * The catalog, and per engine whether the servers (online ones) have its image, as their agents said at their last
   * health check (`checkedAt`): a read that touches PostgreSQL only (issue 34). Creation still asks the server.
   */
  async engines(): Promise<DatabaseEngineInfo[]> {
    const seen = new Map<string, { image: string; available: boolean; hint: string; at: Date }>();
    for (const n of await this.deps.nodes.list()) {
      if (n.status !== 'online' || !n.databaseEngines) continue;
      for (const e of n.databaseEngines.engines) {
        const before = seen.get(e.engine);
        if (!before || (!before.available && e.available)) seen.set(e.engine, { image: e.image, available: e.available, hint: e.hint, at: n.databaseEngines.at });
      }
    }
    return DATABASE_ENGINE_NAMES.map((engine) => {
      const spec = ENGINES[engine];
      const on = seen.get(engine);
      return {
        engine,
        versions: [...spec.versions],
        defaultVersion: spec.versions[0]!,
        available: on?.available ?? false,
        image: on?.image ?? '',
        reason: on ? (on.available ? null : on.hint || `The image ${on.image} is not on the server`) : 'No server has reported its engines yet',
        checkedAt: on?.at.toISOString() ?? null,
      };
    });
  }

  async list(access: WorkspaceAccess): Promise<Database[]> {
    const rows = await this.deps.databases.list({ workspaceId: access.workspace.id });
    const node = await this.node(access);
    return rows.map((d) => toDatabase(d, node));
  }

  async get(access: WorkspaceAccess, databaseId: string): Promise<Database> {
    return toDatabase(await this.find(access, databaseId), await this.node(access));
  }

  async create(access: WorkspaceAccess, input: CreateDatabaseRequest): Promise<Database> {
    const engine = input.engine as DatabaseEngine;
    const spec = ENGINES[engine];
    const version = input.version ?? spec.versions[0]!;
    if (!spec.versions.includes(version)) throw invalid('/version', `is not a version of ${engine}; one of ${spec.versions.join(', ')}`);
    const minimum = (await this.minimums(access))[engine];
    const size = { cpuMillis: input.cpuMillis ?? minimum.cpuMillis, memoryMb: input.memoryMb, diskMb: input.diskMb ?? minimum.diskMb };
    checkMinimums(size, minimum, engine);
    const name = input.name.trim();
    const slug = databaseSlug(name);
    if (await this.deps.databases.nameTaken({ workspaceId: access.workspace.id }, name, null)) throw nameTaken(name);
    const node = await this.node(access);
    if (!node) throw new AppError('node_unavailable', 'The workspace has no server to run the database on');
    await this.assertEngineAvailable(node, engine);

    const id = uuidv7(this.deps.clock().getTime());
    await this.deps.quota.reserve(access.workspace.id, { resourceType: engine, resourceId: id, ...size });
    try {
      const created = await this.deps.databases.create(
        {
          id,
          workspaceId: access.workspace.id,
          nodeId: node.id,
          name,
          slug,
          engine,
          version,
          ...size,
          username: spec.username,
          databaseName: spec.databaseName,
          passwordSealed: this.deps.secrets.seal(newDatabasePassword()),
        },
        { kind: DATABASE_CONVERGE_JOB, nodeId: node.id, payload: { databaseId: id, intent: 'create' } },
      );
      if (created === 'name_taken') throw nameTaken(name);
      await this.deps.jobs.enqueue(DATABASE_CONVERGE_JOB, { operationId: created.operationId }, { jobId: created.operationId });
      return toDatabase(created.db, node);
    } catch (e) {
      await this.deps.quota.release(access.workspace.id, id);
      throw e;
    }
  }

  async update(access: WorkspaceAccess, databaseId: string, input: UpdateDatabaseRequest): Promise<Database> {
    let db = await this.find(access, databaseId);
    const scope = { workspaceId: access.workspace.id, databaseId: db.id };
    if (db.status === 'deleting') throw deletingState();
    if (input.name !== undefined) {
      const name = input.name.trim();
      if (name !== db.name) {
        if (await this.deps.databases.nameTaken({ workspaceId: access.workspace.id }, name, db.id)) throw nameTaken(name);
        db = (await this.deps.databases.rename(scope, name)) ?? db;
      }
    }
    const resize =
      (input.cpuMillis !== undefined && input.cpuMillis !== db.cpuMillis) || (input.memoryMb !== undefined && input.memoryMb !== db.memoryMb);
    if (resize) {
      if (BUSY.includes(db.status)) throw busy(db);
      const size = { cpuMillis: input.cpuMillis ?? db.cpuMillis, memoryMb: input.memoryMb ?? db.memoryMb, diskMb: db.diskMb };
      checkMinimums(size, (await this.minimums(access))[db.engine], db.engine);
      // Reserved now (402 when it does not fit); the job recreates the container at the new size.
      await this.deps.quota.reserve(access.workspace.id, { resourceType: db.engine, resourceId: db.id, ...size });
      const moved = await this.intent(scope, {
        changes: { cpuMillis: size.cpuMillis, memoryMb: size.memoryMb, ...(db.desiredState === 'running' ? { status: 'updating' as const } : {}), statusMessage: null },
        from: ['running', 'stopped', 'failed'],
        operation: { kind: DATABASE_CONVERGE_JOB, nodeId: db.nodeId, payload: { databaseId: db.id, intent: 'resize' } },
      });
      if (!moved.ok) {
        // Another request moved it first: the reservation goes back to the size the row has.
        await this.deps.quota.reserve(access.workspace.id, { resourceType: db.engine, resourceId: db.id, cpuMillis: moved.db.cpuMillis, memoryMb: moved.db.memoryMb, diskMb: moved.db.diskMb });
        throw moved.db.status === 'deleting' ? deletingState() : busy(moved.db);
      }
      db = moved.db;
    }
    return toDatabase(db, await this.node(access));
  }

  /** Reservation released at once; the `database.teardown` job erases container and data, then the row. */
  async remove(access: WorkspaceAccess, databaseId: string): Promise<void> {
    const db = await this.find(access, databaseId);
    if (db.status === 'deleting') return;
    const moved = await this.intent(
      { workspaceId: access.workspace.id, databaseId: db.id },
      {
        changes: { status: 'deleting', desiredState: 'stopped', statusMessage: null },
        from: LIVE,
        publicPort: null,
        operation: { kind: DATABASE_TEARDOWN_JOB, nodeId: db.nodeId, payload: { databaseId: db.id } },
      },
    );
    if (!moved.ok) return; // deleting already
    await this.deps.quota.release(access.workspace.id, db.id);
  }

  stop(access: WorkspaceAccess, databaseId: string): Promise<Database> {
    return this.power(access, databaseId, 'stopped');
  }

  start(access: WorkspaceAccess, databaseId: string): Promise<Database> {
    return this.power(access, databaseId, 'running');
  }

  private async power(access: WorkspaceAccess, databaseId: string, desiredState: 'running' | 'stopped'): Promise<Database> {
    const db = await this.find(access, databaseId);
    if (db.status === 'deleting') throw deletingState();
    // A failed database started again is provisioned anew on its data.
    const status = desiredState === 'running' && db.status === 'failed' ? { status: 'provisioning' as const, statusMessage: null } : {};
    const moved = await this.intent(
      { workspaceId: access.workspace.id, databaseId: db.id },
      { changes: { desiredState, ...status }, from: LIVE, operation: { kind: DATABASE_CONVERGE_JOB, nodeId: db.nodeId, payload: { databaseId: db.id, intent: desiredState === 'running' ? 'start' : 'stop' } } },
    );
    if (!moved.ok) throw deletingState();
    return toDatabase(moved.db, await this.node(access));
  }

  async rotatePassword(access: WorkspaceAccess, databaseId: string): Promise<Database> {
    const db = await this.find(access, databaseId);
    if (BUSY.includes(db.status)) throw busy(db);
    if (db.status !== 'running' || db.desiredState !== 'running') {
      throw new AppError('invalid_state', `The database is ${db.status === 'running' ? 'being stopped' : db.status}: only a running database can rotate its password`);
    }
    const scope = { workspaceId: access.workspace.id, databaseId: db.id };
    const newPasswordSealed = this.deps.secrets.seal(newDatabasePassword());
    const moved = await this.intent(scope, {
      changes: { status: 'updating', statusMessage: ROTATING_MESSAGE },
      from: ['running'],
      operation: { kind: DATABASE_ROTATE_JOB, nodeId: db.nodeId, payload: { databaseId: db.id, newPasswordSealed } },
    });
    if (!moved.ok) throw moved.db.status === 'deleting' ? deletingState() : busy(moved.db);
    return toDatabase(await this.rotated(scope, newPasswordSealed), await this.node(access));
  }

  /**
   * Answers once the engine has the new password: the job records it only after the engine took it, so from this
   * answer on the old one is refused and the connection shows the new one. A rotation the server refused, or did not
   * confirm in time, is 503 with what to do.
   */
  private async rotated(scope: DatabaseScope, newPasswordSealed: string): Promise<DatabaseRecord> {
    const until = Date.now() + ROTATE_WAIT_MS;
    for (let pause = 50; ; pause = Math.min(500, pause * 2)) {
      const row = await this.deps.databases.find(scope);
      if (!row) throw notFoundDatabase();
      if (row.passwordSealed === newPasswordSealed) return row;
      if (row.status !== 'updating' || row.statusMessage !== ROTATING_MESSAGE) {
        throw new AppError('node_unavailable', `The server did not apply the new password (${row.statusMessage ?? `the database is ${row.status}`}); the old password still works: try again`);
      }
      if (Date.now() > until) {
        throw new AppError('node_unavailable', `The server has not confirmed the new password within ${ROTATE_WAIT_MS / 1000} s; the rotation goes on: the database shows running once the engine has it`);
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  async setPublic(access: WorkspaceAccess, databaseId: string, input: PutDatabasePublicRequest): Promise<Database> {
    const db = await this.find(access, databaseId);
    if (db.status === 'deleting') throw deletingState();
    const cidrs: string[] = [];
    (input.allowedCidrs ?? []).forEach((c, i) => {
      const checked = checkCidr(c);
      if (!checked.ok) throw invalid(`/allowedCidrs/${i}`, checked.message);
      if (!cidrs.includes(checked.cidr)) cidrs.push(checked.cidr);
    });
    if (input.enabled && !cidrs.length) throw invalid('/allowedCidrs', 'needs at least one range to enable public access (0.0.0.0/0 and ::/0 allow everyone)');
    const moved = await this.intent(
      { workspaceId: access.workspace.id, databaseId: db.id },
      {
        changes: { publicEnabled: input.enabled, allowedCidrs: input.enabled ? cidrs : input.allowedCidrs ? cidrs : db.allowedCidrs },
        from: LIVE,
        publicPort: input.enabled ? 'allocate' : null,
        operation: { kind: DATABASE_CONVERGE_JOB, nodeId: db.nodeId, payload: { databaseId: db.id, intent: 'public' } },
      },
    );
    if (!moved.ok) throw deletingState();
    return toDatabase(moved.db, await this.node(access));
  }

  /** The URL as a secret variable of an app of the workspace (404 for any other app); applies at its next start. */
  async connect(access: WorkspaceAccess, databaseId: string, input: ConnectDatabaseRequest): Promise<{ ok: true; variable: string }> {
    const db = await this.find(access, databaseId);
    if (db.status === 'deleting') throw deletingState();
    const variable = input.variable ?? ENGINES[db.engine].variable;
    const url = connectionUrl(this.parts(db));
    const written = await this.deps.databases.setAppSecret({ workspaceId: access.workspace.id, appId: input.appId }, variable, this.deps.secrets.seal(url), this.deps.clock());
    if (!written) throw new AppError('not_found', 'The app was not found');
    return { ok: true, variable };
  }

  async connection(access: WorkspaceAccess, databaseId: string): Promise<DatabaseConnection> {
    const db = await this.find(access, databaseId);
    // Mid-rotation the engine may have either password: none is shown rather than one it may refuse.
    if (db.status === 'updating' && db.statusMessage === ROTATING_MESSAGE) {
      throw new AppError('database_busy', 'The password is being rotated: ask again in a moment (the database shows running once it is done)');
    }
    const parts = this.parts(db);
    const node = await this.node(access);
    const publicHost = publicHostOf(node);
    return {
      host: parts.host,
      port: parts.port,
      username: parts.username,
      password: parts.password,
      databaseName: parts.databaseName,
      url: connectionUrl(parts),
      publicUrl: db.publicEnabled && db.publicPort && publicHost ? connectionUrl({ ...parts, host: publicHost, port: db.publicPort }, true) : null,
      caCertificateUrl: DATABASE_CA_PATH,
    };
  }

  private parts(db: DatabaseRecord) {
    return {
      engine: db.engine,
      host: internalHost(db.slug),
      port: ENGINES[db.engine].port,
      username: db.username,
      password: this.deps.secrets.open(db.passwordSealed),
      databaseName: db.databaseName,
    };
  }

  /** Records the intent and queues its job; `ok: false` with the row when its status was not in `from`. */
  private async intent(scope: DatabaseScope, intent: DatabaseIntent): Promise<{ ok: true; db: DatabaseRecord } | { ok: false; db: DatabaseRecord }> {
    const recorded = await this.deps.databases.recordIntent(scope, intent);
    if (recorded === null) throw notFoundDatabase();
    if (recorded === 'no_port') throw new AppError('node_unavailable', "Every public port (20000–20999) of the workspace's server is taken");
    if (!recorded.moved) return { ok: false, db: recorded.db };
    await this.deps.jobs.enqueue(intent.operation.kind, { operationId: recorded.operationId }, { jobId: recorded.operationId });
    return { ok: true, db: recorded.db };
  }

  private async assertEngineAvailable(node: NodeRecord, engine: DatabaseEngine): Promise<void> {
    if (!this.deps.agents) throw new AppError('node_unavailable', 'This API was started without a connection to the agents');
    let engines;
    try {
      engines = await withTimeout(this.deps.agents.databaseEngines({ name: node.name, grpcAddress: node.grpcAddress }), ENGINES_TIMEOUT_MS);
    } catch (e) {
      if (e instanceof AppError && e.code !== 'internal') throw e;
      throw new AppError('node_unavailable', "The workspace's server did not answer");
    }
    const found = engines.find((e) => e.engine === engine);
    if (!found?.available) {
      const image = found?.image ?? engine;
      throw new AppError(
        'engine_unavailable',
        `The ${engine} engine cannot run on this platform now: its image ${image} is not on the server. ${found?.hint || `Load it there with \`docker load -i <file>\` (or \`docker pull ${image}\` where a registry is reachable), or set the image in the agent's settings.`}`,
      );
    }
  }

  /** What the platform did to the database that its owners should know of (issue 32: a move to another server), newest first. */
  async events(access: WorkspaceAccess, databaseId: string): Promise<ResourceEventList> {
    await this.find(access, databaseId);
    return eventList((await this.deps.events?.list({ workspaceId: access.workspace.id, resourceId: databaseId }, RESOURCE_EVENTS_LIMIT)) ?? []);
  }

  private async find(access: WorkspaceAccess, databaseId: string): Promise<DatabaseRecord> {
    const db = await this.deps.databases.find({ workspaceId: access.workspace.id, databaseId });
    if (!db) throw notFoundDatabase();
    return db;
  }

  private async node(access: WorkspaceAccess): Promise<NodeRecord | null> {
    return access.workspace.nodeId ? this.deps.nodes.get(access.workspace.nodeId) : null;
  }

  private async minimums(access: WorkspaceAccess): Promise<Minimums> {
    const plan = await this.deps.plans.findById(access.workspace.planId);
    if (!plan) throw new Error(`Workspace ${access.workspace.id} refers to a missing plan`);
    return plan.minimums as Minimums;
  }
}

export const internalHost = (slug: string): string => `${slug}.internal`;

/** A DNS label of at most 30 characters from the database's name. */
export function databaseSlug(name: string): string {
  if (!/[A-Za-z0-9]/.test(name)) return 'db';
  return (
    slugify(name)
      .slice(0, SLUG_MAX)
      .replace(/-+$/, '') || 'db'
  );
}

/** The server's first public address (what the public URL names). */
const publicHostOf = (node: NodeRecord | null): string | null => node?.publicIpv4[0] ?? null;

export function toDatabase(d: DatabaseRecord, node: NodeRecord | null): Database {
  const host = publicHostOf(node);
  return {
    id: d.id,
    workspaceId: d.workspaceId,
    name: d.name,
    slug: d.slug,
    engine: d.engine,
    version: d.version,
    cpuMillis: d.cpuMillis,
    memoryMb: d.memoryMb,
    diskMb: d.diskMb,
    status: d.status,
    desiredState: d.desiredState,
    generation: d.generation,
    internalHost: internalHost(d.slug),
    port: ENGINES[d.engine].port,
    username: d.username,
    databaseName: d.databaseName,
    public: { enabled: d.publicEnabled, host: d.publicEnabled ? host : null, port: d.publicEnabled ? d.publicPort : null, allowedCidrs: [...d.allowedCidrs] },
    statusMessage: d.statusMessage,
    runningSince: d.runningSince?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export const notFoundDatabase = () => new AppError('not_found', 'The database was not found');
const nameTaken = (name: string) => new AppError('name_taken', `A database named "${name}" already exists in this workspace`);
const deletingState = () => new AppError('invalid_state', 'The database is being deleted');
const busy = (db: DatabaseRecord) =>
  new AppError('database_busy', `The database is ${db.status}${db.statusMessage ? ` (${db.statusMessage})` : ''}: wait until that is done`);
const invalid = (field: string, message: string) => new AppError('validation_failed', 'The request body is invalid', [{ field, message }]);

function checkMinimums(size: { cpuMillis: number; memoryMb: number; diskMb: number }, minimum: { cpuMillis: number; memoryMb: number; diskMb: number }, engine: string): void {
  const details = [];
  if (size.cpuMillis < minimum.cpuMillis) details.push({ field: '/cpuMillis', message: `must be at least ${minimum.cpuMillis} for ${engine}` });
  if (size.memoryMb < minimum.memoryMb) details.push({ field: '/memoryMb', message: `must be at least ${minimum.memoryMb} for ${engine}` });
  if (size.diskMb < minimum.diskMb) details.push({ field: '/diskMb', message: `must be at least ${minimum.diskMb} for ${engine}` });
  if (details.length) throw new AppError('validation_failed', `The size is below the plan's minimum for ${engine}`, details);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new AppError('node_unavailable', 'no answer in time')), ms).unref())]);
}
