import type { ConvergeDone, ConvergeNode, ConvergeOneOptions, Converger } from '../convergence/converger';
import { journalIdOf } from '../convergence/journal-id';
import type { ResourceLocks } from '../convergence/resource-locks';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import { isTransient, type OperationHandler, type OperationNode } from '../operations/operation-runner';
import type { AgentTarget } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { DatabaseAgent, DatabaseCertificates, DatabaseHeld, DatabaseJobStore, DatabaseRecord, DatabaseSettlement, EnsureDatabaseInput } from './database.ports';

/** What a pass learned of a node's databases: what the server holds, by database id. */
export interface DatabasePassContext {
  held: Map<string, DatabaseHeld>;
  rowIds: Set<string>;
}

/**
 * The job side of databases. Every job (`database.converge`, `database.rotate-password`, `database.teardown`) and
 * every repair holds the database's lock (`ResourceLocks`, kind `database`), and reads the row
 * when it runs: the desired state, size, public access and password are the row's, never the job's payload, so the
 * intent accepted last wins whatever order the jobs run in (docs/decisions/0012). The status written afterwards is
 * what the agent reported, and only while the row's generation is the one the work read (a later intent settles
 * it itself).
 */
export class DatabaseConvergeService implements Converger<DatabasePassContext> {
  readonly kind = 'database' as const;

  constructor(
    private readonly deps: {
      databases: DatabaseJobStore;
      agents: DatabaseAgent;
      certificates: DatabaseCertificates;
      secrets: SecretBox;
      locks: ResourceLocks;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** `database.converge`: create, start, stop, resize, public access. */
  readonly converge: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    return this.deps.locks.hold('database', databaseId, () => this.convergeHeld(databaseId, node, op.id));
  };

  /** `database.rotate-password`: the new password (sealed in the payload) applied inside the running engine. */
  readonly rotate: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    const sealed = op.payload.newPasswordSealed;
    if (typeof sealed !== 'string') throw new AppError('validation_failed', 'The operation carries no new password');
    return this.deps.locks.hold('database', databaseId, async () => {
      const db = await this.deps.databases.getById(databaseId);
      if (!db || db.deletedAt || db.workspaceDeleted || db.status === 'deleting') return { skipped: 'database deleted' };
      if (db.passwordSealed === sealed) return { rotated: true, replayed: true };
      const target = await this.target(db, node);
      try {
        await this.deps.agents.rotateDatabasePassword(target, {
          operationId: journalIdOf(`${op.id}-rotate`),
          databaseId,
          currentPassword: this.deps.secrets.open(db.passwordSealed),
          newPassword: this.deps.secrets.open(sealed),
        });
      } catch (e) {
        if (isTransient(e)) throw e;
        // The engine kept the old password: the row says so, and the database's state is read again.
        await this.deps.databases.settle(databaseId, db.generation, { status: db.status === 'updating' ? 'running' : db.status, statusMessage: `The password rotation failed: ${(e as Error).message}` });
        throw e;
      }
      await this.deps.databases.setPassword(databaseId, sealed, { generation: db.generation, settlement: { status: db.desiredState === 'running' ? 'running' : 'stopped', statusMessage: null } });
      this.deps.logger.info({ databaseId }, 'database password rotated');
      return { rotated: true };
    });
  };

  /** `database.teardown`: container, listener and data erased on the server, then the row. */
  readonly teardown: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    return this.deps.locks.hold('database', databaseId, async () => {
      const db = await this.deps.databases.getById(databaseId);
      if (!db) return { skipped: 'already removed' };
      if (!db.deletedAt && !db.workspaceDeleted && db.status !== 'deleting') return { skipped: 'the database is not deleted' };
      const removed = node ? await this.deps.agents.removeDatabase(asTarget(node), { operationId: journalIdOf(`${op.id}-remove`), databaseId }) : null;
      await this.deps.databases.purge(databaseId);
      this.deps.logger.info({ databaseId, removed }, 'database removed');
      return { removed };
    });
  };

  /**
   * Every database of a deleted workspace (its teardown): container and data erased, rows dropped. Idempotent.
   * Runs on the workspace's server (null: none, only the rows go).
   */
  async removeWorkspaceDatabases(workspaceId: string, node: OperationNode, operationId: string): Promise<number> {
    const rows = await this.deps.databases.listOfWorkspace(workspaceId);
    for (const db of rows) {
      await this.deps.locks.hold('database', db.id, async () => {
        if (node) await this.deps.agents.removeDatabase(asTarget(node), { operationId: journalIdOf(`${operationId}-${db.id}`), databaseId: db.id });
        await this.deps.databases.purge(db.id);
      });
    }
    return rows.length;
  }

  /** The databases placed on the node, and what the server holds (one listing per pass). */
  async listOnNode(node: ConvergeNode): Promise<{ ids: string[]; context: DatabasePassContext }> {
    const held = new Map((await this.deps.agents.listDatabases(asTarget(node), {})).map((h) => [h.databaseId, h]));
    const rows = await this.deps.databases.listOnNode(node.id);
    return { ids: rows.map((r) => r.id), context: { held, rowIds: new Set(rows.map((r) => r.id)) } };
  }

  /**
   * One database compared with what its server holds and repaired when they differ (a container removed by hand
   * recreated on its data, a stopped one started for a database meant to run, a running one stopped for a database
   * meant to be stopped, the status corrected). The caller holds its lock.
   */
  async convergeOne(node: ConvergeNode, databaseId: string, o: ConvergeOneOptions<DatabasePassContext>): Promise<ConvergeDone[]> {
    const db = await this.deps.databases.getById(databaseId);
    if (!db || db.deletedAt || db.workspaceDeleted || db.status === 'deleting') return [];
    const fresh = async () => (await this.deps.agents.listDatabases(asTarget(node), { workspaceId: db.workspaceId })).find((h) => h.databaseId === databaseId);
    // A pass's listing may be older than the last job on the database: a drift is confirmed on a fresh one.
    let now = o.context ? o.context.held.get(databaseId) : await fresh();
    let drift = driftOf(db, now);
    if (drift && o.context) {
      now = await fresh();
      drift = driftOf(db, now);
    }
    if (!drift) return [];
    const done: ConvergeDone[] = [];
    // Bringing the container back waits for the engine to accept connections: meanwhile the status says it is down.
    if (db.desiredState === 'running' && db.status === 'running' && (!now || now.state !== 'running')) {
      const message = `${o.why === 'reconcile pass' ? drift : o.why}; the platform is starting it again`;
      await this.deps.databases.settle(db.id, db.generation, { status: 'failed', statusMessage: sentence(message), runningSince: null });
      done.push({ kind: 'status', reason: `recorded running, the server shows it ${now?.state ?? 'gone'}` });
    }
    await this.convergeHeld(databaseId, node, o.operationId);
    return [...done, { kind: 'converge', reason: drift }];
  }

  /** What the server holds without a live row: erased only when the row is gone or marked deleted (data of a live row never). */
  async afterNode(node: ConvergeNode, o: { runId: string; busy: string[]; context: DatabasePassContext }): Promise<ConvergeDone[]> {
    const done: ConvergeDone[] = [];
    for (const h of o.context.held.values()) {
      if (o.context.rowIds.has(h.databaseId)) continue;
      const row = await this.deps.databases.getById(h.databaseId);
      if (row && !row.deletedAt && !row.workspaceDeleted && row.status !== 'deleting') continue; // another server's row, or not placed here
      const erased = await this.deps.locks.tryHold('database', h.databaseId, async () => {
        await this.deps.agents.removeDatabase(asTarget(node), { operationId: journalIdOf(`reconcile-${o.runId.slice(-24)}-rm-${h.databaseId}`), databaseId: h.databaseId });
        if (row) await this.deps.databases.purge(h.databaseId);
      });
      if (erased) done.push({ kind: 'erase', reason: `the data of database ${h.databaseId}, whose row is gone or deleted, erased` });
    }
    return done;
  }

  /** The caller holds the lock. */
  private async convergeHeld(databaseId: string, node: OperationNode | { id: string; name: string; grpcAddress: string }, operationId: string): Promise<unknown> {
    const db = await this.deps.databases.getById(databaseId);
    if (!db || db.deletedAt || db.workspaceDeleted || db.status === 'deleting') return { skipped: 'database deleted' };
    const target = await this.target(db, node);
    const server = await this.deps.databases.nodeOf(db.workspaceId);
    const tls = server ? await this.deps.certificates.serverCertificate(server) : null;
    let result;
    try {
      result = await this.deps.agents.ensureDatabase(target, ensureInputOf(db, { operationId: journalIdOf(`${operationId}-g${db.generation}`), password: this.deps.secrets.open(db.passwordSealed), tls }));
    } catch (e) {
      if (isTransient(e)) throw e;
      await this.deps.databases.settle(db.id, db.generation, { status: 'failed', statusMessage: (e as Error).message, runningSince: null });
      throw e;
    }
    const settlement = this.settlement(db, result.state, result.message);
    await this.deps.databases.settle(db.id, db.generation, settlement);
    return { state: result.state, containerId: result.containerId, replayed: result.replayed };
  }

  private settlement(db: DatabaseRecord, state: string, message: string): DatabaseSettlement {
    const applied = { cpuMillis: db.cpuMillis, memoryMb: db.memoryMb };
    const recreated = db.appliedCpuMillis !== db.cpuMillis || db.appliedMemoryMb !== db.memoryMb;
    if (state === 'running') {
      const since = db.status === 'running' && db.runningSince && !recreated ? db.runningSince : this.deps.clock();
      return { status: 'running', statusMessage: null, runningSince: since, applied };
    }
    if (state === 'stopped' && db.desiredState === 'stopped') return { status: 'stopped', statusMessage: null, runningSince: null, applied };
    return { status: 'failed', statusMessage: message || `The server reports the database ${state}`, runningSince: null };
  }

  private async target(db: DatabaseRecord, node: OperationNode | { id: string; name: string; grpcAddress: string }): Promise<AgentTarget> {
    if (node) return asTarget(node);
    const server = await this.deps.databases.nodeOf(db.workspaceId);
    if (!server) throw new AppError('node_unavailable', "The database's server is not known");
    return asTarget(server);
  }
}

/**
 * What EnsureDatabase gets for a row: its spec, its password (opened by the caller), its public access (`publicPort`:
 * another port than the row's, for a server the database is being moved to) and the server's certificate.
 */
export function ensureInputOf(
  db: DatabaseRecord,
  o: { operationId: string; password: string; tls: EnsureDatabaseInput['tls']; publicPort?: number | null },
): EnsureDatabaseInput {
  const port = o.publicPort === undefined ? db.publicPort : o.publicPort;
  return {
    operationId: o.operationId,
    workspaceId: db.workspaceId,
    databaseId: db.id,
    slug: db.slug,
    engine: db.engine,
    version: db.version,
    cpuMillis: db.cpuMillis,
    memoryMb: db.memoryMb,
    diskMb: db.diskMb,
    username: db.username,
    databaseName: db.databaseName,
    password: o.password,
    stopped: db.desiredState === 'stopped',
    public: db.publicEnabled && port ? { port, allowedCidrs: [...db.allowedCidrs] } : null,
    tls: o.tls,
  };
}

/** Statuses a job owns until it ends: a pass never settles them. */
const JOB_OWNED: readonly string[] = ['updating', 'provisioning', 'restoring'];

/** Why the server's copy differs from the row (null: it matches, nothing to do). */
export function driftOf(db: DatabaseRecord, held: DatabaseHeld | undefined): string | null {
  const wanted = db.desiredState;
  if (!held || held.state === 'missing' || !held.containerId) return `the container is gone (${wanted} wanted)`;
  if (wanted === 'running' && held.state !== 'running') return `the container is ${held.state} and the database should run`;
  if (wanted === 'stopped' && held.state === 'running') return 'the container runs and the database should be stopped';
  // updating, provisioning and restoring belong to their job (a restore whose worker died is run again, or failed for
  // good with its reason): a pass that called a restoring database running let a backup in before the restore ran again.
  if (wanted === 'running' && db.status !== 'running' && !JOB_OWNED.includes(db.status)) return `recorded ${db.status}, the server shows it running`;
  if (wanted === 'stopped' && db.status !== 'stopped' && db.status !== 'updating') return `recorded ${db.status}, the server shows it stopped`;
  const publicPort = db.publicEnabled ? (db.publicPort ?? 0) : 0;
  if (wanted === 'running' && held.publicPort !== publicPort) return `the public port is ${held.publicPort || 'closed'}, ${publicPort || 'closed'} wanted`;
  return null;
}

/** A message as a sentence: its first letter upper case, a full stop at the end. */
const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${s.endsWith('.') ? '' : '.'}`;

const asTarget = (node: { name: string; grpcAddress: string }): AgentTarget => ({ name: node.name, grpcAddress: node.grpcAddress });

function payloadId(payload: Record<string, unknown>): string {
  const id = payload.databaseId;
  if (typeof id !== 'string') throw new AppError('validation_failed', 'The operation names no database');
  return id;
}
