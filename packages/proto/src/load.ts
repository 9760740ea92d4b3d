import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as AgentProto } from './generated/agent';
import type { ProtoGrpcType as BuildsProto } from './generated/build';
import type { ProtoGrpcType as DomainsProto } from './generated/domains';
import type { ProtoGrpcType as FilesProto } from './generated/files';
import type { ProtoGrpcType as DatabasesProto } from './generated/databases';
import type { ProtoGrpcType as BackupsProto } from './generated/backups';
import type { ProtoGrpcType as HealthProto } from './generated/health';
import type { ProtoGrpcType as MetricsProto } from './generated/metrics';
import type { ProtoGrpcType as MovesProto } from './generated/moves';

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

/** A loader of one .proto file that parses it on first use and hands out the same package object after. */
function protoLoaderOf<T>(file: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= grpc.loadPackageDefinition(protoLoader.loadSync(file, LOADER_OPTIONS)) as unknown as T);
}

export const loadAgentProto = protoLoaderOf<AgentProto>('slipway/agent/v1/agent.proto');

export const loadHealthProto = protoLoaderOf<HealthProto>('grpc/health/v1/health.proto');

/** `slipway.agent.v1.Files` (files.proto): a service of its own beside `Agent`, on the same server and channel. */
export const loadFilesProto = protoLoaderOf<FilesProto>('slipway/agent/v1/files.proto');

/** `slipway.agent.v1.Builds` (build.proto): uploads built on the server, a service of its own on the same server. */
export const loadBuildsProto = protoLoaderOf<BuildsProto>('slipway/agent/v1/build.proto');

/** `slipway.agent.v1.Domains` (domains.proto): DNS checks and custom-domain routes, a service of its own on the same server. */
export const loadDomainsProto = protoLoaderOf<DomainsProto>('slipway/agent/v1/domains.proto');
/** `slipway.agent.v1.Metrics` (metrics.proto): minute aggregates and node usage, a service of its own on the same server. */
export const loadMetricsProto = protoLoaderOf<MetricsProto>('slipway/agent/v1/metrics.proto');
/** `slipway.agent.v1.Databases` (databases.proto): managed databases on the server, a service of its own. */
export const loadDatabasesProto = protoLoaderOf<DatabasesProto>('slipway/agent/v1/databases.proto');

/** `slipway.agent.v1.Backups` (backups.proto): database backups on the server (issue 13), a service of its own. */
export const loadBackupsProto = protoLoaderOf<BackupsProto>('slipway/agent/v1/backups.proto');
/** `slipway.agent.v1.Moves` (moves.proto, issue 32): a workspace's images and project folders out of and into a server. */
export const loadMovesProto = protoLoaderOf<MovesProto>('slipway/agent/v1/moves.proto');
