import type { BackupDestinationTest } from '@slipway/contracts';
import type { AgentTarget } from '../ports/agents';

/** A backup destination row (issue 33); the secret key stays sealed here. */
export interface BackupDestinationRecord {
  id: string;
  workspaceId: string;
  name: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  pathStyle: boolean;
  accessKeyId: string;
  /** SecretBox-sealed; opened only to reach the storage (the test call, the agent's upload). */
  secretKeySealed: string;
  isDefault: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type BackupDestinationFields = Omit<BackupDestinationRecord, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>;

/** Request side: every method takes the workspace. */
export interface BackupDestinationRepository {
  /** null when the name is taken in the workspace. Setting isDefault clears the others' in the same transaction. */
  create(workspaceId: string, fields: BackupDestinationFields): Promise<BackupDestinationRecord | null>;
  list(workspaceId: string): Promise<BackupDestinationRecord[]>;
  find(scope: { workspaceId: string; destinationId: string }): Promise<BackupDestinationRecord | null>;
  /** 'not_found' | 'name_taken' or the row. Setting isDefault true clears the others'. */
  update(scope: { workspaceId: string; destinationId: string }, changes: Partial<BackupDestinationFields>): Promise<BackupDestinationRecord | 'not_found' | 'name_taken'>;
  /** Databases that named it fall back to the workspace default (the foreign key sets null). */
  remove(scope: { workspaceId: string; destinationId: string }): Promise<boolean>;
  /** The destination a database names (null) and the workspace's default; null when no such database. */
  ofDatabase(scope: { workspaceId: string; databaseId: string }): Promise<{ named: BackupDestinationRecord | null; workspaceDefault: BackupDestinationRecord | null } | null>;
  /** false when no such database. */
  nameForDatabase(scope: { workspaceId: string; databaseId: string }, destinationId: string | null): Promise<boolean>;
}

/** An S3-compatible target with its secret opened, as the storage client needs it (packages/offsite `S3Target`). */
export type OpenedDestination = Pick<BackupDestinationRecord, 'endpoint' | 'region' | 'bucket' | 'prefix' | 'pathStyle' | 'accessKeyId'> & { secretAccessKey: string };

/** What a probe answers (the test call's body but for where it ran). */
export type ProbeAnswer = Omit<BackupDestinationTest, 'server'>;

/** Writes, reads back and deletes a probe object from this process (packages/offsite `probeTarget`). */
export type DestinationProbe = (target: OpenedDestination) => Promise<ProbeAnswer>;

/**
 * The same probe run by the agent of a server (Backups.ProbeDestination): from the workspace's server, whose network
 * is the one its backups take. An agent that cannot run it throws (the probe's own failures are answers).
 */
export interface ServerDestinationProbe {
  nodes: { get(nodeId: string): Promise<{ name: string; grpcAddress: string } | null> };
  probe(target: AgentTarget, destination: OpenedDestination): Promise<ProbeAnswer>;
}
