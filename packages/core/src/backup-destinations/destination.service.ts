import type {
  BackupDestination,
  BackupDestinationTest,
  CreateBackupDestinationRequest,
  DatabaseBackupDestination,
  UpdateBackupDestinationRequest,
} from '@slipway/contracts';
import type { WorkspaceAccess } from '../auth/actor';
import type { SecretBox } from '../auth/secret-box';
import { AppError } from '../errors';
import type { BackupDestinationFields, BackupDestinationRecord, BackupDestinationRepository, DestinationProbe, OpenedDestination, ServerDestinationProbe } from './destination.ports';

export const toBackupDestination = (d: BackupDestinationRecord): BackupDestination => ({
  id: d.id,
  workspaceId: d.workspaceId,
  name: d.name,
  endpoint: d.endpoint,
  region: d.region,
  bucket: d.bucket,
  prefix: d.prefix,
  pathStyle: d.pathStyle,
  accessKeyId: d.accessKeyId,
  isDefault: d.isDefault,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

/** `https://host:port/` → `https://host:port`: the SDK joins paths itself. */
const endpointOf = (endpoint: string): string => endpoint.replace(/\/+$/, '');

/** The destination with its secret opened, for the storage client (never returned by the API, never logged). */
export function openDestination(d: BackupDestinationRecord, secrets: SecretBox): OpenedDestination {
  const { endpoint, region, bucket, prefix, pathStyle, accessKeyId } = d;
  return { endpoint, region, bucket, prefix, pathStyle, accessKeyId, secretAccessKey: secrets.open(d.secretKeySealed) };
}

/**
 * Backup destinations of a workspace (issue 33): S3-compatible buckets, the secret key sealed at rest with the
 * platform's SecretBox and never returned; a test call; which destination a database's backups go to.
 */
export class BackupDestinationService {
  constructor(
    private readonly deps: {
      destinations: BackupDestinationRepository;
      secrets: SecretBox;
      /** The probe from this process (the control plane). */
      probe: DestinationProbe;
      /** The probe from the workspace's server (its agent); absent: always from the control plane. */
      fromServer?: ServerDestinationProbe;
    },
  ) {}

  async create(access: WorkspaceAccess, input: CreateBackupDestinationRequest): Promise<BackupDestination> {
    const fields: BackupDestinationFields = {
      name: input.name,
      endpoint: endpointOf(input.endpoint),
      region: input.region,
      bucket: input.bucket,
      prefix: input.prefix ?? '',
      pathStyle: input.pathStyle ?? false,
      accessKeyId: input.accessKeyId,
      secretKeySealed: this.deps.secrets.seal(input.secretKey),
      isDefault: input.isDefault ?? false,
    };
    const created = await this.deps.destinations.create(access.workspace.id, fields);
    if (!created) throw new AppError('name_taken', `A backup destination named ${input.name} already exists in this workspace`);
    return toBackupDestination(created);
  }

  async list(access: WorkspaceAccess): Promise<BackupDestination[]> {
    return (await this.deps.destinations.list(access.workspace.id)).map(toBackupDestination);
  }

  async get(access: WorkspaceAccess, destinationId: string): Promise<BackupDestination> {
    return toBackupDestination(await this.find(access, destinationId));
  }

  async update(access: WorkspaceAccess, destinationId: string, input: UpdateBackupDestinationRequest): Promise<BackupDestination> {
    const { secretKey, endpoint, ...rest } = input;
    const changes: Partial<BackupDestinationFields> = {
      ...rest,
      ...(endpoint !== undefined ? { endpoint: endpointOf(endpoint) } : {}),
      ...(secretKey !== undefined ? { secretKeySealed: this.deps.secrets.seal(secretKey) } : {}),
    };
    const updated = await this.deps.destinations.update({ workspaceId: access.workspace.id, destinationId }, changes);
    if (updated === 'not_found') throw notFound();
    if (updated === 'name_taken') throw new AppError('name_taken', `A backup destination named ${input.name ?? ''} already exists in this workspace`);
    return toBackupDestination(updated);
  }

  async remove(access: WorkspaceAccess, destinationId: string): Promise<void> {
    if (!(await this.deps.destinations.remove({ workspaceId: access.workspace.id, destinationId }))) throw notFound();
  }

  /**
   * Writes, reads back and deletes a probe object; a failure is an answer (ok false, a sentence), not an error. Run
   * by the agent of the workspace's server, where the backups upload from (its DNS, routes, firewall, CA bundle and
   * clock are the ones that matter); from the control plane when the workspace has no server yet or that agent cannot
   * run it (down, or older than the test call), and the message says so.
   */
  async test(access: WorkspaceAccess, destinationId: string): Promise<BackupDestinationTest> {
    const destination = openDestination(await this.find(access, destinationId), this.deps.secrets);
    const nodeId = access.workspace.nodeId;
    const node = nodeId && this.deps.fromServer ? await this.deps.fromServer.nodes.get(nodeId) : null;
    if (!node || !this.deps.fromServer) return { ...(await this.deps.probe(destination)), server: null };
    try {
      return { ...(await this.deps.fromServer.probe({ name: node.name, grpcAddress: node.grpcAddress }, destination)), server: node.name };
    } catch (e) {
      const why = e instanceof AppError && (e.code === 'node_unavailable' || e.code === 'service_unavailable') ? 'did not answer' : `could not run it (${(e as Error).message})`;
      const answer = await this.deps.probe(destination);
      return { ...answer, message: `${answer.message} (Tested from the control plane: the workspace's server ${node.name} ${why}; its backups upload from that server.)`, server: null };
    }
  }

  async ofDatabase(access: WorkspaceAccess, databaseId: string): Promise<DatabaseBackupDestination> {
    const found = await this.deps.destinations.ofDatabase({ workspaceId: access.workspace.id, databaseId });
    if (!found) throw new AppError('not_found', 'The database was not found');
    const effective = found.named ?? found.workspaceDefault;
    return {
      databaseId,
      destinationId: found.named?.id ?? null,
      effective: effective ? { id: effective.id, name: effective.name } : null,
      source: found.named ? 'database' : found.workspaceDefault ? 'workspace_default' : 'none',
    };
  }

  async setForDatabase(access: WorkspaceAccess, databaseId: string, destinationId: string | null): Promise<DatabaseBackupDestination> {
    if (destinationId !== null) await this.find(access, destinationId);
    if (!(await this.deps.destinations.nameForDatabase({ workspaceId: access.workspace.id, databaseId }, destinationId))) {
      throw new AppError('not_found', 'The database was not found');
    }
    return this.ofDatabase(access, databaseId);
  }

  private async find(access: WorkspaceAccess, destinationId: string): Promise<BackupDestinationRecord> {
    const found = await this.deps.destinations.find({ workspaceId: access.workspace.id, destinationId });
    if (!found) throw notFound();
    return found;
  }
}

const notFound = (): AppError => new AppError('not_found', 'The backup destination was not found');
