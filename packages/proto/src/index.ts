export { AgentConnection, AgentPool, type AgentClient, type HealthClient } from './client';
export { fromServiceError, GRPC_STATUS, toServiceError } from './errors';
export { loadAgentProto, loadHealthProto, LOADER_OPTIONS, PROTO_ROOT } from './load';
export { bindServer, createAgentServer, type AgentHandlers, type HealthHandlers } from './server';
export { agentServerCredentials, controlPlaneCredentials, type TlsMaterial } from './tls';
export type * from './messages';
