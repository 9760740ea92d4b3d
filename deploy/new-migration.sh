#!/usr/bin/env bash
# Starts the next migration from the difference between prisma/migrations and prisma/schema.prisma.
# Development only: needs the Prisma schema engine (offline, ../shared/tools stands in for it).
#
# The stand-in engine cannot diff against the migrations (every diff that reads a database comes back empty: see
# deploy/drift-check.sh), so the SQL cannot be generated here. This script runs the drift check, and when the two
# disagree it creates prisma/migrations/<UTC timestamp>_NAME/migration.sql with the drift check's list of what is
# missing as comments and, for reference, Prisma's SQL for the whole schema; write the statements by hand, then run
# deploy/drift-check.sh until it agrees.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: deploy/new-migration.sh NAME}
[[ $name =~ ^[a-z0-9_]+$ ]] || { echo "NAME must be lowercase letters, digits and _" >&2; exit 2; }
export PRISMA_SCHEMA_ENGINE_BINARY=${PRISMA_SCHEMA_ENGINE_BINARY:-$(realpath ../shared/tools/prisma-schema-engine.mjs)}
if drift=$(bash deploy/drift-check.sh 2>&1); then echo "schema and migrations agree: nothing to write"; exit 0; fi
dir="prisma/migrations/$(date -u +%Y%m%d%H%M%S)_$name"
mkdir -p "$dir"
{
  echo "-- $name: write the statements that make the migrations match prisma/schema.prisma."
  echo "-- What the drift check found (+ in schema.prisma, missing from the migrations; - in the migrations only):"
  printf '%s\n' "$drift" | sed 's/^/-- /'
  echo "--"
  echo "-- Prisma's SQL for the whole schema (for reference; copy the parts that apply):"
  DATABASE_URL=${DRIFT_DATABASE_URL:-${DATABASE_URL:-postgresql://slipway_test:slipway_test@127.0.0.1:5432/slipway_drift}} \
    npx prisma migrate diff --from-empty --to-schema prisma/schema.prisma --script 2>/dev/null | sed 's/^/-- /'
} > "$dir/migration.sql"
echo "wrote $dir/migration.sql: the drift it must close is listed in it; write the SQL, then run deploy/drift-check.sh"
