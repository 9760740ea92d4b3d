// The least an agent of this architecture can be on this Node (bench/idle prints its RSS beside the agent's): Node with
// what the agent cannot do without and nothing of Slipway's own code: @grpc/grpc-js serving every service of the
// agent's .proto files (parsed by @grpc/proto-loader with the agent's options), pino, and the core modules the agent's
// work needs (TLS, HTTP/2, HTTP for Caddy's and HAProxy's admin, zlib, crypto, child processes).
// Run by bench/idle/run.ts with the agent's V8 flags: node [flags] bench/idle/agent-floor.mjs
import { readdirSync } from 'node:fs';
import 'node:http';
import 'node:https';
import 'node:http2';
import 'node:tls';
import 'node:zlib';
import 'node:crypto';
import 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setInterval } from 'node:timers';

const root = path.resolve(import.meta.dirname, '../..');
const fromProto = createRequire(path.join(root, 'packages/proto/package.json'));
const fromAgent = createRequire(path.join(root, 'apps/agent/package.json'));
const grpc = fromProto('@grpc/grpc-js');
const protoLoader = fromProto('@grpc/proto-loader');
const pino = fromAgent('pino');

const protoRoot = path.join(root, 'proto');
// LOADER_OPTIONS of packages/proto/src/load.ts (TypeScript, which this file cannot import without a loader that would
// itself be measured).
const options = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [protoRoot] };
const files = [...readdirSync(path.join(protoRoot, 'slipway/agent/v1')).map((f) => `slipway/agent/v1/${f}`), 'grpc/health/v1/health.proto'];
const server = new grpc.Server();
for (const file of files) {
  const definition = protoLoader.loadSync(file, options);
  // Messages and enums carry `format`; a service is its methods, each with a `path`.
  for (const service of Object.values(definition)) if (!('format' in service)) server.addService(service, {});
}
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  pino().info('agent floor ready');
});
setInterval(() => undefined, 1 << 30); // stays up until bench/idle stops it
