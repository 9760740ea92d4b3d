export { AgentConnection, AgentPool, type AgentClient, type HealthClient } from './client';
export { fromServiceError, GRPC_STATUS, toServiceError } from './errors';
export { loadAgentProto, loadBuildsProto, loadDomainsProto, LOADER_OPTIONS, loadFilesProto, loadHealthProto, loadMetricsProto, PROTO_ROOT } from './load';
export { loadDatabasesProto } from './load';
export type { DatabasesHandlers } from './generated/slipway/agent/v1/Databases';
export type { EnsureDatabaseRequest__Output as EnsureDatabaseRequestMessage } from './generated/slipway/agent/v1/EnsureDatabaseRequest';
export {
  DatabasesPool,
  type DatabasesClient,
  type DatabaseEngineImageResult,
  type DatabaseOnNodeResult,
  type DatabasePublicSpec,
  type DatabaseState,
  type DatabaseStatusResult,
  type EnsureDatabaseInput,
} from './databases.client';
export { BuildsPool, type BuildsClient } from './builds.client';
export type { BuildsHandlers } from './generated/slipway/agent/v1/Builds';
export type { UploadZipChunk__Output as UploadZipChunk } from './generated/slipway/agent/v1/UploadZipChunk';
export { FilesPool, type FilesClient } from './files.client';
export type { FilesHandlers } from './generated/slipway/agent/v1/Files';
export type { WriteFileChunk__Output as WriteFileChunk } from './generated/slipway/agent/v1/WriteFileChunk';
export { bindServer, createAgentServer, type AgentHandlers, type HealthHandlers } from './server';
export { agentServerCredentials, controlPlaneCredentials, type TlsMaterial } from './tls';
export type * from './messages';
export { DomainsPool, type DomainsClient } from './domains.client';
export type { DomainsHandlers } from './generated/slipway/agent/v1/Domains';
export { MetricsPool, type MetricsClient } from './metrics.client';
export type { MetricsHandlers } from './generated/slipway/agent/v1/Metrics';
export { loadBackupsProto } from './load';
export type { BackupsHandlers } from './generated/slipway/agent/v1/Backups';
export { BackupsPool, type BackupsClient } from './backups.client';
export { databaseAgentOf } from './database-agent';
export { loadMovesProto } from './load';
export type { MovesHandlers } from './generated/slipway/agent/v1/Moves';
export type { ImportChunk__Output as ImportChunk } from './generated/slipway/agent/v1/ImportChunk';
export { MovesPool, type MovesClient } from './moves.client';
