#!/usr/bin/env bash
# Fails when prisma/schema.prisma and the committed migrations disagree (CI runs it).
#   deploy/drift-check.sh [PRISMA_DIR]   (PRISMA_DIR holds schema.prisma and migrations/; default: prisma)
#
# It builds two scratch databases on the PostgreSQL server of DRIFT_DATABASE_URL (else DATABASE_URL), which
# must be allowed to CREATE DATABASE, and drops them at the end:
#   - "migrations": every migration applied by the project's own runner (packages/db/src/migrate.ts),
#   - "schema": the SQL that `prisma migrate diff --from-empty --to-schema` writes for schema.prisma,
# then compares their catalogs (tables, columns with type, nullability and default, primary/unique/foreign keys,
# indexes, enums). CHECK constraints are not compared: schema.prisma cannot express them.
#
# Why not `prisma migrate diff --from-migrations … --exit-code`: with the WebAssembly schema engine stand-in
# (../shared/tools/prisma-schema-engine.mjs) every diff whose side is read from a database (the shadow database
# of --from-migrations, --from-config-datasource) sees an empty or identical schema, so it printed nothing and
# exited 0 even with a migration folder missing. Only --from-empty --to-schema, which reads no database, is
# trusted here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=$(realpath "${1:-prisma}")
[[ -f $dir/schema.prisma && -d $dir/migrations ]] || { echo "drift check: $dir has no schema.prisma and migrations/" >&2; exit 2; }
export PRISMA_SCHEMA_ENGINE_BINARY=${PRISMA_SCHEMA_ENGINE_BINARY:-$(realpath ../shared/tools/prisma-schema-engine.mjs)}
export PGOPTIONS=${PGOPTIONS:---client-min-messages=warning}
base=${DRIFT_DATABASE_URL:-${DATABASE_URL:-postgresql://slipway_test:slipway_test@127.0.0.1:5432/slipway_drift}}

# URL of database $1 on the server of $base.
db_url() { node -e 'const u=new URL(process.argv[1]); u.pathname="/"+process.argv[2]; u.search=""; console.log(u.toString())' "$base" "$1"; }
admin=$(db_url "$(node -e 'console.log(decodeURIComponent(new URL(process.argv[1]).pathname.slice(1))||"postgres")' "$base")")
tag="drift_$(date +%s)_$$"
mig_db="${tag}_migrations" schema_db="${tag}_schema"
work=$(mktemp -d)
cleanup() {
  psql -X -q "$admin" -c "DROP DATABASE IF EXISTS \"$mig_db\"" -c "DROP DATABASE IF EXISTS \"$schema_db\"" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql -X -q -v ON_ERROR_STOP=1 "$admin" -c "CREATE DATABASE \"$mig_db\" TEMPLATE template0" -c "CREATE DATABASE \"$schema_db\" TEMPLATE template0" >/dev/null

# 1. The migrations, applied as production applies them.
(cd "$root" && node_modules/.bin/tsx -e '
  import("./packages/db/src/migrate").then((m) => m.migrate(process.argv[1], process.argv[2]))
    .catch((e) => { console.error(`drift check: ${e.message}`); process.exit(1); })' "$(db_url "$mig_db")" "$dir/migrations")

# 2. The schema, as SQL written by Prisma from nothing (no database read).
# DATABASE_URL must name a reachable database even here: when the engine stand-in cannot connect to it, the CLI
# prints nothing and exits 0 (hence the CREATE TABLE guard below).
if ! DATABASE_URL=$(db_url "$schema_db") "$root/node_modules/.bin/prisma" migrate diff --from-empty --to-schema "$dir/schema.prisma" --script >"$work/schema.sql" 2>"$work/prisma.err"; then
  cat "$work/prisma.err" >&2
  echo "drift check: prisma migrate diff --from-empty --to-schema failed" >&2
  exit 2
fi
grep -q 'CREATE TABLE' "$work/schema.sql" || { echo "drift check: Prisma wrote no CREATE TABLE for $dir/schema.prisma" >&2; exit 2; }
psql -X -q -1 -v ON_ERROR_STOP=1 "$(db_url "$schema_db")" -f "$work/schema.sql" >/dev/null

# 3. Both catalogs as sorted lines, one object per line (Prisma's _prisma_migrations bookkeeping left out).
catalog() {
  psql -X -q -At -v ON_ERROR_STOP=1 "$(db_url "$1")" <<'SQL' | LC_ALL=C sort
WITH t AS (
  SELECT c.oid, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> '_prisma_migrations')
SELECT 'table ' || relname FROM t
UNION ALL
SELECT 'column ' || t.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
       || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE ' NULL' END
       || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
FROM t JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_attrdef d ON d.adrelid = t.oid AND d.adnum = a.attnum
UNION ALL
SELECT 'constraint ' || t.relname || '.' || con.conname || ' ' || pg_get_constraintdef(con.oid)
-- CHECK constraints (and NOT NULL ones, PostgreSQL 18) are left out: Prisma's schema cannot express them, so
-- hand-written ones in migrations are not drift (Prisma's own diff ignores them too).
FROM t JOIN pg_constraint con ON con.conrelid = t.oid AND con.contype NOT IN ('c', 'n')
UNION ALL
SELECT 'index ' || t.relname || '.' || i.relname || ' ' || regexp_replace(pg_get_indexdef(i.oid), '^.* USING ', 'USING ')
FROM t JOIN pg_index x ON x.indrelid = t.oid JOIN pg_class i ON i.oid = x.indexrelid
UNION ALL
SELECT 'enum ' || ty.typname || ' (' || string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder) || ')'
FROM pg_type ty JOIN pg_namespace n ON n.oid = ty.typnamespace JOIN pg_enum e ON e.enumtypid = ty.oid
WHERE n.nspname = 'public' GROUP BY ty.typname;
SQL
}
catalog "$mig_db" >"$work/migrations.txt"
catalog "$schema_db" >"$work/schema.txt"
[[ -s $work/schema.txt ]] || { echo "drift check: the database built from schema.prisma is empty" >&2; exit 2; }

missing=$(LC_ALL=C comm -13 "$work/migrations.txt" "$work/schema.txt")
extra=$(LC_ALL=C comm -23 "$work/migrations.txt" "$work/schema.txt")
if [[ -n $missing || -n $extra ]]; then
  {
    echo "drift: ${dir#"$root"/}/schema.prisma and ${dir#"$root"/}/migrations disagree"
    [[ -z $missing ]] || { echo "in schema.prisma, missing from the migrations:"; sed 's/^/  + /' <<<"$missing"; }
    [[ -z $extra ]] || { echo "in the migrations, not in schema.prisma:"; sed 's/^/  - /' <<<"$extra"; }
    echo "(bash deploy/new-migration.sh NAME starts the migration with this list in it; write its SQL by hand)"
  } >&2
  exit 1
fi
echo "drift check: schema and migrations agree ($(find "$dir/migrations" -mindepth 1 -maxdepth 1 -type d | wc -l) migrations, $(grep -c '^table ' "$work/schema.txt") tables, $(wc -l <"$work/schema.txt") catalog entries)"
