#!/usr/bin/env bash
# Regenerates src/generated from /proto with the same options src/load.ts passes to proto-loader.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf src/generated
./node_modules/.bin/proto-loader-gen-types \
  --longs=String --enums=String --defaults --oneofs \
  --includeComments --grpcLib=@grpc/grpc-js --outDir=src/generated --includeDirs=../../proto -- \
  slipway/agent/v1/agent.proto slipway/agent/v1/files.proto slipway/agent/v1/build.proto slipway/agent/v1/databases.proto slipway/agent/v1/backups.proto slipway/agent/v1/metrics.proto slipway/agent/v1/domains.proto slipway/agent/v1/moves.proto grpc/health/v1/health.proto
echo "generated packages/proto/src/generated"
