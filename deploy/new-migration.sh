#!/usr/bin/env bash
# Authors the next migration from the difference between prisma/migrations and prisma/schema.prisma.
# Development only: needs the Prisma schema engine (offline, ../shared/tools stands in for it).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: deploy/new-migration.sh NAME}
[[ $name =~ ^[a-z0-9_]+$ ]] || { echo "NAME must be lowercase letters, digits and _" >&2; exit 2; }
export PRISMA_SCHEMA_ENGINE_BINARY=${PRISMA_SCHEMA_ENGINE_BINARY:-$(realpath ../shared/tools/prisma-schema-engine.mjs)}
sql=$(npx prisma migrate diff --from-migrations prisma/migrations --to-schema prisma/schema.prisma --script 2>/dev/null)
if [[ -z $sql || $sql == "-- This is an empty migration." ]]; then echo "schema and migrations agree: nothing to write"; exit 0; fi
dir="prisma/migrations/$(date -u +%Y%m%d%H%M%S)_$name"
mkdir -p "$dir"
printf '%s\n' "$sql" > "$dir/migration.sql"
npx prisma generate >/dev/null
echo "wrote $dir/migration.sql (review it before committing)"
