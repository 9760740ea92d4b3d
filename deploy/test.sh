#!/usr/bin/env bash
# The full test suite, as CI runs it, on the platform's Node (installed like setup does, deploy/lib/node.sh):
# starts the real services (PostgreSQL, Redis, Docker, Caddy),
# builds the local base images, then type check, lint, migration drift check, unit and integration tests.
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"

need_root
start_services
install_node_deps
ensure_role slipway_test slipway_test SUPERUSER
ensure_database slipway_drift slipway_test
if [[ ${SLIPWAY_SKIP_IMAGES:-0} != 1 ]]; then
  bash "$REPO_ROOT/deploy/images/build.sh"
fi

# The web console's browser tests (issue 28) drive Debian's Chromium (Playwright's own download is not reachable).
if ! command -v chromium >/dev/null; then
  say "installing chromium (browser tests)"
  (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq chromium >"$SLIPWAY_LOG_DIR/apt-chromium.log" 2>&1) ||
    die "apt-get install chromium failed (see $SLIPWAY_LOG_DIR/apt-chromium.log)"
fi

cd "$REPO_ROOT"
say "type check"
npx tsc -p tsconfig.json
say "web console: type check and build (apps/console/dist)"
node deploy/build.mjs console
say "lint"
npx eslint --max-warnings 0 .
engine=${PRISMA_SCHEMA_ENGINE_BINARY:-$REPO_ROOT/../shared/tools/prisma-schema-engine.mjs}
if [[ -f $engine ]]; then
  say "migration drift check"
  PRISMA_SCHEMA_ENGINE_BINARY=$(realpath "$engine") DATABASE_URL=postgresql://slipway_test:slipway_test@127.0.0.1:5432/slipway_drift \
    bash deploy/drift-check.sh
else
  say "migration drift check skipped: no Prisma schema engine here (set PRISMA_SCHEMA_ENGINE_BINARY)"
fi
say "unit and integration tests"
# CI's machine is its own: the fault suite may restart its Docker engine (testing/src/faults).
export SLIPWAY_FAULTS_DOCKER=${SLIPWAY_FAULTS_DOCKER:-1}
# A failing browser test leaves a screenshot and the page's console output here.
export SLIPWAY_BROWSER_ARTIFACTS=${SLIPWAY_BROWSER_ARTIFACTS:-$REPO_ROOT/.slipway/browser-artifacts}
say "browser tests (jest project browser) keep failure screenshots and page consoles in $SLIPWAY_BROWSER_ARTIFACTS"
npx jest --ci --runInBand "$@"
