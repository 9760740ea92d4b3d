import type { AgentTarget } from '@slipway/core';
import type { AgentPool } from './client';
import type { DatabaseEnginesResponse__Output } from './generated/slipway/agent/v1/DatabaseEnginesResponse';
import type { DatabasesClient } from './generated/slipway/agent/v1/Databases';

export type { DatabasesClient };
import type { DatabaseStatus__Output } from './generated/slipway/agent/v1/DatabaseStatus';
import type { EnsureDatabaseRequest } from './generated/slipway/agent/v1/EnsureDatabaseRequest';
import type { GetDatabaseCaResponse__Output } from './generated/slipway/agent/v1/GetDatabaseCaResponse';
import type { ListDatabasesResponse__Output } from './generated/slipway/agent/v1/ListDatabasesResponse';
import type { RemoveDatabaseResponse__Output } from './generated/slipway/agent/v1/RemoveDatabaseResponse';
import { loadDatabasesProto } from './load';
import { unary } from './unary';

/** How long a command may take: a first start initialises the engine (MySQL: tens of seconds), readiness up to 120 s. */
const COMMAND_DEADLINE_MS = 180_000;
const QUERY_DEADLINE_MS = 30_000;

export type DatabaseState = 'running' | 'stopped' | 'missing' | 'failed';

/** What the agent answers about one database after a command. */
export interface DatabaseStatusResult {
  databaseId: string;
  containerId: string;
  state: DatabaseState;
  /** `<slug>.internal` */
  internalHost: string;
  /** The engine's port on the private network. */
  port: number;
  ipAddress: string;
  /** 0: no public listener. */
  publicPort: number;
  image: string;
  message: string;
  replayed: boolean;
}

export interface DatabasePublicSpec {
  enabled: boolean;
  /** 20000-20999, unique on the server (chosen by the control plane). */
  port: number;
  /** Validated (apps/agent/src/databases/cidr.ts rules). */
  allowedCidrs: string[];
}

export interface EnsureDatabaseInput {
  operationId: string;
  databaseId: string;
  workspaceId: string;
  slug: string;
  engine: 'postgres' | 'mysql' | 'redis' | 'mongodb';
  version: string;
  /** Empty or absent: the agent's SLIPWAY_IMAGE_* for the engine. */
  image?: string;
  cpuMillis: number;
  memoryMb: number;
  diskMb?: number;
  username: string;
  databaseName: string;
  /** Plain, over mutual TLS; never logged. */
  password: string;
  public?: DatabasePublicSpec;
  /** A dedicated certificate; absent: the agent's own (platform CA). */
  tls?: { certPem: string; keyPem: string };
  /** Desired state stopped: the container is made (or kept) but not started. */
  stopped?: boolean;
}

export interface DatabaseOnNodeResult {
  databaseId: string;
  workspaceId: string;
  slug: string;
  engine: string;
  containerId: string;
  state: 'running' | 'stopped' | 'missing';
  hasData: boolean;
  publicPort: number;
  cpuMillis: number;
  memoryMb: number;
  image: string;
}

export interface DatabaseEngineImageResult {
  engine: string;
  image: string;
  available: boolean;
  hint: string;
  port: number;
}

/**
 * The `slipway.agent.v1.Databases` service of each server (databases.proto), over the pool's connection to it. Errors
 * come back as AppError with the agent's code (`engine_unavailable`, `invalid_state`, `rollout_failed`, `not_found`,
 * `validation_failed`); an agent that cannot be reached is `node_unavailable` (transient: the job retries with the
 * same operation id and the agent replays).
 */
export class DatabasesPool {
  constructor(private readonly agents: AgentPool) {}

  client(target: AgentTarget): DatabasesClient {
    const { Databases } = loadDatabasesProto().slipway.agent.v1;
    return this.agents.connection(target).service('databases', (address, credentials, options) => new Databases(address, credentials, options));
  }

  async ensureDatabase(target: AgentTarget, input: EnsureDatabaseInput): Promise<DatabaseStatusResult> {
    return status(await unary<DatabaseStatus__Output>(target, (cb, o) => this.client(target).ensureDatabase(request(input), o, cb), COMMAND_DEADLINE_MS));
  }

  async startDatabase(target: AgentTarget, input: EnsureDatabaseInput): Promise<DatabaseStatusResult> {
    return status(await unary<DatabaseStatus__Output>(target, (cb, o) => this.client(target).startDatabase(request({ ...input, stopped: false }), o, cb), COMMAND_DEADLINE_MS));
  }

  async stopDatabase(target: AgentTarget, input: { operationId: string; databaseId: string }): Promise<DatabaseStatusResult> {
    return status(await unary<DatabaseStatus__Output>(target, (cb, o) => this.client(target).stopDatabase(input, o, cb), COMMAND_DEADLINE_MS));
  }

  async removeDatabase(target: AgentTarget, input: { operationId: string; databaseId: string }): Promise<{ containerRemoved: boolean; dataRemoved: boolean; replayed: boolean }> {
    return unary<RemoveDatabaseResponse__Output>(target, (cb, o) => this.client(target).removeDatabase(input, o, cb), COMMAND_DEADLINE_MS);
  }

  async rotateDatabasePassword(target: AgentTarget, input: { operationId: string; databaseId: string; currentPassword: string; newPassword: string }): Promise<DatabaseStatusResult> {
    return status(await unary<DatabaseStatus__Output>(target, (cb, o) => this.client(target).rotateDatabasePassword(input, o, cb), COMMAND_DEADLINE_MS));
  }

  async setDatabasePublicAccess(target: AgentTarget, input: { operationId: string; databaseId: string; public: DatabasePublicSpec }): Promise<DatabaseStatusResult> {
    return status(await unary<DatabaseStatus__Output>(target, (cb, o) => this.client(target).setDatabasePublicAccess(input, o, cb), QUERY_DEADLINE_MS));
  }

  async listDatabases(target: AgentTarget, workspaceId = ''): Promise<DatabaseOnNodeResult[]> {
    const res = await unary<ListDatabasesResponse__Output>(target, (cb, o) => this.client(target).listDatabases({ workspaceId }, o, cb), QUERY_DEADLINE_MS);
    return res.databases.map((d) => ({ ...d, state: d.state as DatabaseOnNodeResult['state'] }));
  }

  async databaseEngines(target: AgentTarget): Promise<DatabaseEngineImageResult[]> {
    return (await unary<DatabaseEnginesResponse__Output>(target, (cb, o) => this.client(target).databaseEngines({}, o, cb), QUERY_DEADLINE_MS)).engines;
  }

  async databaseCa(target: AgentTarget): Promise<string> {
    return (await unary<GetDatabaseCaResponse__Output>(target, (cb, o) => this.client(target).getDatabaseCa({}, o, cb), QUERY_DEADLINE_MS)).caPem;
  }
}

function request(i: EnsureDatabaseInput): EnsureDatabaseRequest {
  return { ...i, image: i.image ?? '', diskMb: i.diskMb ?? 0, public: i.public ?? { enabled: false, port: 0, allowedCidrs: [] }, tls: i.tls ?? { certPem: '', keyPem: '' }, stopped: i.stopped ?? false };
}

function status(s: DatabaseStatus__Output): DatabaseStatusResult {
  return { ...s, state: s.state as DatabaseState };
}
