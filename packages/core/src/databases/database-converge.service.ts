import { journalIdOf } from '../apps/app-converge.service';
import type { AppLocks } from '../apps/app-locks';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { Logger } from '../logging';
import { isTransient, type OperationHandler, type OperationNode } from '../operations/operation-runner';
import type { AgentTarget } from '../ports/agents';
import type { Clock } from '../ports/clock';
import type { DatabaseAgent, DatabaseCertificates, DatabaseHeld, DatabaseJobStore, DatabaseRecord, DatabaseSettlement } from './database.ports';

/** What one reconcile pass did to databases. */
export interface DatabaseReconcileReport {
  compared: number;
  repairs: { node: string; databaseId: string; reason: string }[];
  /** Data of databases without a row (or deleted ones) erased. */
  removed: { node: string; databaseId: string }[];
  busy: string[];
  failed: { node: string; databaseId: string; error: string }[];
}

/**
 * The job side of databases. Every job (`database.converge`, `database.rotate-password`, `database.teardown`) and
 * every repair holds the database's lock (the per-app advisory locks keyed by the database id), and reads the row
 * when it runs: the desired state, size, public access and password are the row's, never the job's payload, so the
 * intent accepted last wins whatever order the jobs run in (docs/decisions/0012). The status written afterwards is
 * what the agent reported, and only while the row's generation is the one the work read (a later intent settles
 * it itself).
 */
export class DatabaseConvergeService {
  constructor(
    private readonly deps: {
      databases: DatabaseJobStore;
      agents: DatabaseAgent;
      certificates: DatabaseCertificates;
      secrets: SecretBox;
      locks: AppLocks;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** `database.converge`: create, start, stop, resize, public access. */
  readonly converge: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    return this.deps.locks.withApp(databaseId, () => this.convergeHeld(databaseId, node, op.id));
  };

  /** `database.rotate-password`: the new password (sealed in the payload) applied inside the running engine. */
  readonly rotate: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    const sealed = op.payload.newPasswordSealed;
    if (typeof sealed !== 'string') throw new AppError('validation_failed', 'The operation carries no new password');
    return this.deps.locks.withApp(databaseId, async () => {
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
      await this.deps.databases.setPassword(databaseId, sealed);
      await this.deps.databases.settle(databaseId, db.generation, { status: db.desiredState === 'running' ? 'running' : 'stopped', statusMessage: null });
      this.deps.logger.info({ databaseId }, 'database password rotated');
      return { rotated: true };
    });
  };

  /** `database.teardown`: container, listener and data erased on the server, then the row. */
  readonly teardown: OperationHandler = (op, node) => {
    const databaseId = payloadId(op.payload);
    return this.deps.locks.withApp(databaseId, async () => {
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
      await this.deps.locks.withApp(db.id, async () => {
        if (node) await this.deps.agents.removeDatabase(asTarget(node), { operationId: journalIdOf(`${operationId}-${db.id}`), databaseId: db.id });
        await this.deps.databases.purge(db.id);
      });
    }
    return rows.length;
  }

  /**
   * One reconcile pass over a server: each database row compared with what the agent holds, repaired under its lock
   * when they differ (a container removed by hand recreated on its data, a stopped one started for a database meant
   * to run, a running one stopped for a database meant to be stopped, the status corrected); databases the server
   * holds whose row is gone (or deleted) erased. Data of a database whose row exists is never erased here.
   */
  async reconcileNode(node: { id: string; name: string; grpcAddress: string }, runId: string): Promise<DatabaseReconcileReport> {
    const report: DatabaseReconcileReport = { compared: 0, repairs: [], removed: [], busy: [], failed: [] };
    const target = asTarget(node);
    const held = new Map((await this.deps.agents.listDatabases(target, {})).map((h) => [h.databaseId, h]));
    const rows = await this.deps.databases.listOnNode(node.id);
    const rowIds = new Set(rows.map((r) => r.id));
    for (const db of rows) {
      report.compared++;
      const drift = driftOf(db, held.get(db.id));
      if (!drift) continue;
      try {
        const done = await this.deps.locks.tryWithApp(db.id, () => this.convergeHeld(db.id, node, journalIdOf(`reconcile-${runId.slice(-24)}-${db.id}`)));
        if (!done) {
          report.busy.push(db.id);
          continue;
        }
        report.repairs.push({ node: node.name, databaseId: db.id, reason: drift });
        this.deps.logger.warn({ node: node.name, databaseId: db.id, reason: drift }, 'database repaired');
      } catch (e) {
        report.failed.push({ node: node.name, databaseId: db.id, error: (e as Error).message });
        this.deps.logger.error({ node: node.name, databaseId: db.id, err: (e as Error).message }, 'could not bring the database to its desired state');
      }
    }
    // What the server holds without a live row: erased only when the row is gone or marked deleted.
    for (const h of held.values()) {
      if (rowIds.has(h.databaseId)) continue;
      const row = await this.deps.databases.getById(h.databaseId);
      if (row && !row.deletedAt && !row.workspaceDeleted && row.status !== 'deleting') continue; // another server's row, or not placed here
      try {
        const done = await this.deps.locks.tryWithApp(h.databaseId, async () => {
          await this.deps.agents.removeDatabase(target, { operationId: journalIdOf(`reconcile-${runId.slice(-24)}-rm-${h.databaseId}`), databaseId: h.databaseId });
          if (row) await this.deps.databases.purge(h.databaseId);
        });
        if (done) report.removed.push({ node: node.name, databaseId: h.databaseId });
      } catch (e) {
        report.failed.push({ node: node.name, databaseId: h.databaseId, error: (e as Error).message });
      }
    }
    return report;
  }

  /**
   * One database at once (its container exited): compared with what the server holds and repaired like a pass would,
   * unless a job holds its lock (that job converges it). null when busy or nothing differed.
   */
  async reconcileDatabase(node: { id: string; name: string; grpcAddress: string }, databaseId: string, why: string): Promise<string | null> {
    const db = await this.deps.databases.getById(databaseId);
    if (!db || db.deletedAt || db.workspaceDeleted || db.status === 'deleting') return null;
    const held = (await this.deps.agents.listDatabases(asTarget(node), { workspaceId: db.workspaceId })).find((h) => h.databaseId === databaseId);
    const drift = driftOf(db, held);
    if (!drift) return null;
    const done = await this.deps.locks.tryWithApp(databaseId, () => this.convergeHeld(databaseId, node, journalIdOf(`event-${Date.now()}-${databaseId}`)));
    if (!done) return null;
    this.deps.logger.warn({ node: node.name, databaseId, reason: drift, why }, 'database repaired');
    return drift;
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
      result = await this.deps.agents.ensureDatabase(target, {
        operationId: journalIdOf(`${operationId}-g${db.generation}`),
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
        password: this.deps.secrets.open(db.passwordSealed),
        stopped: db.desiredState === 'stopped',
        public: db.publicEnabled && db.publicPort ? { port: db.publicPort, allowedCidrs: [...db.allowedCidrs] } : null,
        tls,
      });
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

/** Why the server's copy differs from the row (null: it matches, nothing to do). */
export function driftOf(db: DatabaseRecord, held: DatabaseHeld | undefined): string | null {
  const wanted = db.desiredState;
  if (!held || held.state === 'missing' || !held.containerId) return `the container is gone (${wanted} wanted)`;
  if (wanted === 'running' && held.state !== 'running') return `the container is ${held.state} and the database should run`;
  if (wanted === 'stopped' && held.state === 'running') return 'the container runs and the database should be stopped';
  if (wanted === 'running' && db.status !== 'running' && db.status !== 'updating' && db.status !== 'provisioning') return `recorded ${db.status}, the server shows it running`;
  if (wanted === 'stopped' && db.status !== 'stopped' && db.status !== 'updating') return `recorded ${db.status}, the server shows it stopped`;
  const publicPort = db.publicEnabled ? (db.publicPort ?? 0) : 0;
  if (wanted === 'running' && held.publicPort !== publicPort) return `the public port is ${held.publicPort || 'closed'}, ${publicPort || 'closed'} wanted`;
  return null;
}

const asTarget = (node: { name: string; grpcAddress: string }): AgentTarget => ({ name: node.name, grpcAddress: node.grpcAddress });

function payloadId(payload: Record<string, unknown>): string {
  const id = payload.databaseId;
  if (typeof id !== 'string') throw new AppError('validation_failed', 'The operation names no database');
  return id;
}
