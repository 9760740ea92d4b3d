import * as grpc from '@grpc/grpc-js';
import type { AgentHandlers } from './generated/slipway/agent/v1/Agent';
import type { HealthHandlers } from './generated/grpc/health/v1/Health';
import { loadAgentProto, loadHealthProto } from './load';

export type { AgentHandlers, HealthHandlers };

/** A gRPC server with the agent service and grpc.health.v1.Health; the caller binds it with TLS. */
export function createAgentServer(agent: AgentHandlers, health: HealthHandlers, options: grpc.ServerOptions = {}): grpc.Server {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 8 * 1024 * 1024, ...options });
  server.addService(loadAgentProto().slipway.agent.v1.Agent.service, agent);
  server.addService(loadHealthProto().grpc.health.v1.Health.service, health);
  return server;
}

export function bindServer(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port)));
  });
}
