export { AgentConnection, AgentPool, type AgentClient, type HealthClient } from './client';
export { fromServiceError, GRPC_STATUS, toServiceError } from './errors';
export { loadAgentProto, loadFilesProto, loadHealthProto, LOADER_OPTIONS, PROTO_ROOT } from './load';
export { FilesPool, type FilesClient } from './files.client';
export type { FilesHandlers } from './generated/slipway/agent/v1/Files';
export type { WriteFileChunk__Output as WriteFileChunk } from './generated/slipway/agent/v1/WriteFileChunk';
export { bindServer, createAgentServer, type AgentHandlers, type HealthHandlers } from './server';
export { agentServerCredentials, controlPlaneCredentials, type TlsMaterial } from './tls';
export type * from './messages';
