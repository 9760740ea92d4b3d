import type { DatabaseStatus } from '@slipway/contracts';
import type { OperationJobName } from '../jobs';
import type { AgentTarget } from '../ports/agents';
import type { DatabaseEngine } from '@slipway/contracts';

export type { DatabaseStatus };

/** A database row as services see it. */
export interface DatabaseRecord {
  id: string;
  workspaceId: string;
  nodeId: string | null;
  name: string;
  slug: string;
  engine: DatabaseEngine;
  version: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb: number;
  username: string;
  databaseName: string;
  /** SecretBox-sealed; opened only for the agent, `connection` and `connect`. */
  passwordSealed: string;
  status: DatabaseStatus;
  desiredState: 'running' | 'stopped';
  generation: number;
  statusMessage: string | null;
  publicEnabled: boolean;
  publicPort: number | null;
  allowedCidrs: string[];
  appliedCpuMillis: number | null;
  appliedMemoryMb: number | null;
  runningSince: Date | null;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type DatabaseScope = { workspaceId: string; databaseId: string };

export type NewDatabase = Pick<
  DatabaseRecord,
  'id' | 'workspaceId' | 'nodeId' | 'name' | 'slug' | 'engine' | 'version' | 'cpuMillis' | 'memoryMb' | 'diskMb' | 'username' | 'databaseName' | 'passwordSealed'
>;

/** The fields an intent may change. */
export type DatabaseChanges = Partial<
  Pick<DatabaseRecord, 'name' | 'cpuMillis' | 'memoryMb' | 'passwordSealed' | 'status' | 'desiredState' | 'statusMessage' | 'publicEnabled' | 'allowedCidrs'>
>;

/**
 * An intent on a database: its changes, the statuses it is allowed from (a conditional update), and the Operation row
 * that carries it out (its payload gets the generation the intent made). `publicPort`: `allocate` takes a free port
 * of 20000–20999 on the database's server in the same transaction (kept when it already has one); null releases it.
 */
export interface DatabaseIntent {
  changes: DatabaseChanges;
  from: readonly DatabaseStatus[];
  publicPort?: 'allocate' | null;
  operation: { kind: OperationJobName; nodeId: string | null; payload: Record<string, unknown> };
}

/** Request side: every method takes the workspace. */
export interface DatabaseRepository {
  list(scope: { workspaceId: string }): Promise<DatabaseRecord[]>;
  find(scope: DatabaseScope): Promise<DatabaseRecord | null>;
  /** The row and its first operation, in one transaction. */
  create(db: NewDatabase, operation: DatabaseIntent['operation']): Promise<{ db: DatabaseRecord; operationId: string } | 'name_taken'>;
  /** Another live database of the workspace already has this name (case-insensitive). */
  nameTaken(scope: { workspaceId: string }, name: string, exceptId: string | null): Promise<boolean>;
  rename(scope: DatabaseScope, name: string): Promise<DatabaseRecord | null>;
  /**
   * The generation bump, the changes and the Operation row, in one transaction, only while the row is in `from`.
   * `moved: false` with the row as it is when its status was not in `from` (null: no such database). `no_port`: every
   * public port of the server is taken.
   */
  recordIntent(scope: DatabaseScope, intent: DatabaseIntent): Promise<{ db: DatabaseRecord; operationId: string; moved: true } | { db: DatabaseRecord; moved: false } | 'no_port' | null>;
  /** Writes `value` (already sealed) as the secret variable `key` of a live app of the workspace; false: no such app. */
  setAppSecret(scope: { workspaceId: string; appId: string }, key: string, sealedValue: string, now: Date): Promise<boolean>;
}

/** What converging wrote: the status the server shows, and the size the container now has. */
export interface DatabaseSettlement {
  status: DatabaseStatus;
  statusMessage: string | null;
  runningSince?: Date | null;
  applied?: { cpuMillis: number; memoryMb: number };
}

/** Job side, keyed by the database id an operation carries; deleted rows (and rows of deleted workspaces) included. */
export interface DatabaseJobStore {
  getById(databaseId: string): Promise<(DatabaseRecord & { workspaceDeleted: boolean }) | null>;
  /** Live databases of live workspaces placed on the node. */
  listOnNode(nodeId: string): Promise<DatabaseRecord[]>;
  /** Every database row of a workspace, deleted ones included (its teardown erases each). */
  listOfWorkspace(workspaceId: string): Promise<DatabaseRecord[]>;
  /** Writes the settlement only while the row's generation is `generation` (a later intent settles it itself). */
  settle(databaseId: string, generation: number, s: DatabaseSettlement): Promise<boolean>;
  /**
   * The password the engine now has (after a rotation), sealed, written whatever the generation; with the settlement
   * (written only while the generation is `generation`) in the same transaction, so no reader sees the new password
   * with the rotation still running, or the rotation over with the old password.
   */
  setPassword(databaseId: string, passwordSealed: string, settle?: { generation: number; settlement: DatabaseSettlement }): Promise<void>;
  /** Drops the row of a deleted database once its container and data are gone. */
  purge(databaseId: string): Promise<void>;
  nodeOf(workspaceId: string): Promise<{ id: string; name: string; grpcAddress: string; publicIpv4: string[] } | null>;
}

/**
 * The certificate authority of databases' public ports (its own, not the agents' mTLS CA: a database superuser can
 * read its server key, which must never be worth more than that server's public database ports).
 */
export interface DatabaseCertificates {
  caCertificate(): Promise<string>;
  /**
   * The certificate the databases of a server present on their public ports: SANs the server's public addresses and
   * 127.0.0.1/::1. Made once per server and kept (the same one every time, so a repeated Ensure changes nothing).
   */
  serverCertificate(node: { id: string; publicIpv4: string[] }): Promise<{ certPem: string; keyPem: string }>;
}

/** What the agent reports of an engine on its server (proto DatabaseEngineImage). */
export interface EngineAvailability {
  engine: string;
  image: string;
  available: boolean;
  /** How to make the image available when it is not (`docker load -i …`). */
  hint: string;
}

/** proto EnsureDatabaseRequest. */
export interface EnsureDatabaseInput
  extends Pick<DatabaseRecord, 'workspaceId' | 'slug' | 'engine' | 'version' | 'cpuMillis' | 'memoryMb' | 'diskMb' | 'username' | 'databaseName'> {
  operationId: string;
  databaseId: string;
  password: string;
  /** Create/keep the container stopped. */
  stopped: boolean;
  /** Public access: the port on the server and the ranges allowed; null when off. */
  public: { port: number; allowedCidrs: string[] } | null;
  tls: { certPem: string; keyPem: string } | null;
}

/** proto DatabaseStatus. */
export interface DatabaseOnAgent {
  databaseId: string;
  containerId: string;
  /** running, stopped, missing, failed */
  state: string;
  publicPort: number;
  message: string;
  replayed: boolean;
}

/** proto DatabaseOnNode: what a server holds, for reconciliation. */
export interface DatabaseHeld {
  databaseId: string;
  workspaceId: string;
  containerId: string;
  /** running, stopped, missing (data without a container) */
  state: string;
  hasData: boolean;
  publicPort: number;
  cpuMillis: number;
  memoryMb: number;
}

/**
 * What the services need of an agent for databases: the `slipway.agent.v1.Databases` service
 * (proto/slipway/agent/v1/databases.proto); packages/proto's DatabasesPool implements it over gRPC. Failures to reach
 * the agent are AppError('node_unavailable'); the agent's own refusals keep their codes (engine_unavailable,
 * invalid_state, rollout_failed, not_found, validation_failed).
 */
export interface DatabaseAgent {
  databaseEngines(target: AgentTarget): Promise<EngineAvailability[]>;
  /** Idempotent: data folder, container on the workspace network (alias `<slug>.internal`), readiness, public port. */
  ensureDatabase(target: AgentTarget, input: EnsureDatabaseInput): Promise<DatabaseOnAgent>;
  stopDatabase(target: AgentTarget, input: { operationId: string; databaseId: string }): Promise<DatabaseOnAgent>;
  /** The new password applied inside the live engine; the old one stops working. */
  rotateDatabasePassword(target: AgentTarget, input: { operationId: string; databaseId: string; currentPassword: string; newPassword: string }): Promise<DatabaseOnAgent>;
  /** Container, listener and data folder; idempotent. */
  removeDatabase(target: AgentTarget, input: { operationId: string; databaseId: string }): Promise<{ containerRemoved: boolean; dataRemoved: boolean }>;
  listDatabases(target: AgentTarget, input: { workspaceId?: string }): Promise<DatabaseHeld[]>;
}
