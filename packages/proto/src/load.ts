import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as AgentProto } from './generated/agent';
import type { ProtoGrpcType as BuildsProto } from './generated/build';
import type { ProtoGrpcType as FilesProto } from './generated/files';
import type { ProtoGrpcType as HealthProto } from './generated/health';

export const PROTO_ROOT = path.resolve(__dirname, '../../../proto');

/**
 * The one set of proto-loader options. scripts/generate.sh passes the same ones to
 * proto-loader-gen-types, so the generated types describe exactly what these options produce.
 */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

let agentProto: AgentProto | undefined;
let healthProto: HealthProto | undefined;
let filesProto: FilesProto | undefined;
let buildsProto: BuildsProto | undefined;

export function loadAgentProto(): AgentProto {
  agentProto ??= grpc.loadPackageDefinition(
    protoLoader.loadSync('slipway/agent/v1/agent.proto', LOADER_OPTIONS),
  ) as unknown as AgentProto;
  return agentProto;
}

export function loadHealthProto(): HealthProto {
  healthProto ??= grpc.loadPackageDefinition(
    protoLoader.loadSync('grpc/health/v1/health.proto', LOADER_OPTIONS),
  ) as unknown as HealthProto;
  return healthProto;
}

/** `slipway.agent.v1.Files` (files.proto): a service of its own beside `Agent`, on the same server and channel. */
export function loadFilesProto(): FilesProto {
  filesProto ??= grpc.loadPackageDefinition(
    protoLoader.loadSync('slipway/agent/v1/files.proto', LOADER_OPTIONS),
  ) as unknown as FilesProto;
  return filesProto;
}

/** `slipway.agent.v1.Builds` (build.proto): uploads built on the server, a service of its own on the same server. */
export function loadBuildsProto(): BuildsProto {
  buildsProto ??= grpc.loadPackageDefinition(
    protoLoader.loadSync('slipway/agent/v1/build.proto', LOADER_OPTIONS),
  ) as unknown as BuildsProto;
  return buildsProto;
}
