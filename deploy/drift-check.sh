#!/usr/bin/env bash
# Fails when prisma/schema.prisma and the committed migrations disagree (CI runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
export PRISMA_SCHEMA_ENGINE_BINARY=${PRISMA_SCHEMA_ENGINE_BINARY:-$(realpath ../shared/tools/prisma-schema-engine.mjs)}
if ! out=$(npx prisma migrate diff --from-migrations prisma/migrations --to-schema prisma/schema.prisma --exit-code --script 2>&1); then
  echo "$out"
  echo "drift: prisma/schema.prisma differs from prisma/migrations (run deploy/new-migration.sh NAME)" >&2
  exit 1
fi
echo "drift check: schema and migrations agree"
