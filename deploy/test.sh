#!/usr/bin/env bash
# The full test suite, as CI runs it, on the platform's Node (installed like setup does, deploy/lib/node.sh):
# starts the real services (PostgreSQL, Redis, Docker, Caddy),
# builds the local base images, then type check, lint, migration drift check, unit and integration tests.
#
# Gates (issue 35): what CI's machine must have is checked first (root is need_root's: it always fails without). Missing, it is skipped with its reason on a
# developer's machine and FAILS the run under CI=true. SLIPWAY_TEST_GATES_ONLY=1 stops after the gates
# (testing/src/ci-gates.spec.ts checks them that way, without running the suite).
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"

# gate_missing WHAT REASON: a requirement is missing: fail under CI=true, else say it is skipped and why.
gate_missing() {
  if [[ ${CI:-} == true || ${CI:-} == 1 ]]; then
    printf 'error: %s cannot run: %s (CI=true: CI'"'"'s machine must have it)\n' "$1" "$2" >&2
    exit 1
  fi
  say "$1 skipped: $2"
}
engine=${PRISMA_SCHEMA_ENGINE_BINARY:-$REPO_ROOT/../shared/tools/prisma-schema-engine.mjs}
drift=1
[[ -f $engine ]] || { gate_missing "migration drift check" "no Prisma schema engine at $engine (set PRISMA_SCHEMA_ENGINE_BINARY)"; drift=0; }
if [[ ${SLIPWAY_TEST_GATES_ONLY:-0} == 1 ]]; then
  say "gates checked"
  exit 0
fi

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
if [[ $drift == 1 ]]; then
  say "migration drift check"
  PRISMA_SCHEMA_ENGINE_BINARY=$(realpath "$engine") DATABASE_URL=postgresql://slipway_test:slipway_test@127.0.0.1:5432/slipway_drift \
    bash deploy/drift-check.sh
fi
say "unit, API, integration, browser and fleet tests"
# CI's machine is its own: the fault suite may restart its Docker engine (testing/src/faults).
export SLIPWAY_FAULTS_DOCKER=${SLIPWAY_FAULTS_DOCKER:-1}
# A failing browser test leaves a screenshot and the page's console output here.
export SLIPWAY_BROWSER_ARTIFACTS=${SLIPWAY_BROWSER_ARTIFACTS:-$REPO_ROOT/.slipway/browser-artifacts}
say "browser tests (jest project browser) keep failure screenshots and page consoles in $SLIPWAY_BROWSER_ARTIFACTS"
# The `starters` project (every framework generator's starter built from scratch, ~15 min) runs when asked:
# SLIPWAY_TEST_STARTERS=1, or `bash deploy/test.sh --selectProjects starters`; `integration` keeps a subset of it.
if [[ " $* " == *" --selectProjects "* ]]; then
  npx jest --ci --runInBand "$@"
  exit 0
fi
# The fault suite first, alone (it may restart the Docker engine); then the integration project in this process and,
# beside it, the browser and fleet projects (the fleet's servers run their own engines; both mostly wait on
# containers), their output kept apart and printed after. A failure in either fails the run.
# With a path given, a project may hold none of its tests: that is not a failure then (it is with no path).
filter=()
(( $# > 0 )) && filter=(--passWithNoTests)
npx jest --ci --runInBand "${filter[@]}" "$@" --selectProjects unit api faults
beside_log=$SLIPWAY_LOG_DIR/jest-browser-fleet.log
projects=(browser fleet)
[[ ${SLIPWAY_TEST_STARTERS:-0} == 1 ]] && projects+=(starters)
say "browser and fleet tests run beside the integration tests; their output: $beside_log (printed when they end)"
npx jest --ci --runInBand "${filter[@]}" "$@" --selectProjects "${projects[@]}" >"$beside_log" 2>&1 &
beside=$!
status=0
npx jest --ci --runInBand "${filter[@]}" "$@" --selectProjects integration || status=$?
beside_status=0
wait "$beside" || beside_status=$?
say "browser and fleet tests (run beside the integration tests)"
cat "$beside_log"
(( status == 0 && beside_status == 0 )) || die "tests failed (integration: exit $status; browser and fleet: exit $beside_status)"
