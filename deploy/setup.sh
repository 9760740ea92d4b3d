#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine to a running Slipway: installs what is missing,
# starts PostgreSQL, Redis, Docker and Caddy, builds the local base images when no registry is
# reachable, writes the settings once (random secrets), migrates, starts the API, the workers and
# one agent enrolled with the control plane, and prints the API URL. Running it again changes nothing.
# SLIPWAY_INGRESS (decision 0040): haproxy (the default: HAProxy in front of Caddy) or caddy (Caddy alone); run again
# with the other value, setup switches the machine over (the agent restarted with it, its routes moved across).
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"

ENV_FILE=${SLIPWAY_ENV_FILE:-/etc/slipway/slipway.env}
API_PORT=${SLIPWAY_API_PORT:-7070}
started=$SECONDS

need_root
# Back to Caddy alone: HAProxy keeps serving until the agent has put its routes back into Caddy (below).
export SLIPWAY_INGRESS_SWITCH=defer
start_services
install_node_deps
say "compiling the platform (deploy/build.mjs)"
(cd "$REPO_ROOT" && node deploy/build.mjs >/dev/null) || die "the build failed"
# The user CLI on the platform's Node (apps/slipway/dist/slipway.js, built above).
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$SLIPWAY_NODE_DIR/bin/node" "$REPO_ROOT/apps/slipway/dist/slipway.js" >/usr/local/bin/slipway
chmod 755 /usr/local/bin/slipway

# Base images: the official ones when a registry answers, otherwise built here from Debian packages.
if [[ ${SLIPWAY_SKIP_IMAGES:-0} != 1 ]]; then
  if docker pull -q hello-world >/dev/null 2>&1; then
    say "a container registry is reachable: set SLIPWAY_IMAGE_* in $ENV_FILE to use official images"
  fi
  say "building local base images (reused when up to date)"
  bash "$REPO_ROOT/deploy/images/build.sh"
fi

# Settings, written once. Secrets are random and never printed.
if [[ ! -f $ENV_FILE ]]; then
  say "writing $ENV_FILE"
  mkdir -p "$(dirname "$ENV_FILE")"
  umask 077
  db_password=$(openssl rand -hex 24)
  cat >"$ENV_FILE" <<ENV
SLIPWAY_MODE=production
DATABASE_URL=postgresql://slipway:${db_password}@127.0.0.1:5432/slipway
REDIS_URL=redis://127.0.0.1:6379
SLIPWAY_API_HOST=127.0.0.1
SLIPWAY_API_PORT=${API_PORT}
SLIPWAY_PUBLIC_URL=http://localhost:${API_PORT}
SLIPWAY_SESSION_SECRET=$(openssl rand -hex 32)
SLIPWAY_ENCRYPTION_KEY=$(openssl rand -hex 32)
SLIPWAY_APPS_DOMAIN=apps.localhost
SLIPWAY_DATA_DIR=/var/lib/slipway/control
SLIPWAY_AGENT_DATA_DIR=/var/lib/slipway/agent
SLIPWAY_AGENT_LISTEN=127.0.0.1:7443
SLIPWAY_AGENT_NODE_NAME=$(hostname -s | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9-\n' '-' | cut -c1-63)
SLIPWAY_AGENT_PUBLIC_IPV4=127.0.0.1
# Builds trust this machine's CA bundle (needed behind a TLS-intercepting proxy).
SLIPWAY_BUILD_CA_BUNDLE=$( [[ -f /etc/ssl/certs/ca-certificates.crt ]] && echo /etc/ssl/certs/ca-certificates.crt )
ENV
  umask 022
fi
# SLIPWAY_INGRESS=haproxy: the agent writes app routes into HAProxy's map (decision 0040); caddy: into Caddy's config.
ingress_switched=0
ensure_ingress_env "$ENV_FILE" && ingress_switched=1
set -a
# shellcheck disable=SC1090
source "$ENV_FILE"
set +a

db_password=$(sed -E 's#^postgresql://[^:]+:([^@]+)@.*#\1#' <<<"$DATABASE_URL")
ensure_role slipway "$db_password"
ensure_database slipway slipway
mkdir -p "$SLIPWAY_DATA_DIR" "$SLIPWAY_AGENT_DATA_DIR"

say "applying database migrations"
(cd "$REPO_ROOT" && node packages/db/dist/migrate.cli.js)

# With systemd as PID 1, the processes are units (restart always, logs in the journal).
if [[ -d /run/systemd/system ]]; then install_units; fi

bash "$REPO_ROOT/deploy/platform.sh" start api worker
wait_for 60 "the API" curl -fsS "http://127.0.0.1:${API_PORT}/healthz"

# Enroll this machine's agent once; its key stays in its data dir.
if [[ ! -f $SLIPWAY_AGENT_DATA_DIR/tls/agent.crt ]]; then
  say "enrolling this server's agent"
  token=$(cd "$REPO_ROOT" && node apps/cli/dist/main.js enroll-token create --json |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).token))')
  (cd "$REPO_ROOT" && node apps/agent/dist/main.js join --url "http://127.0.0.1:${API_PORT}" --token "$token")
fi
if ((ingress_switched)) && bash "$REPO_ROOT/deploy/platform.sh" status agent | grep -q running; then
  say "restarting the agent: its app routes go to $([[ $SLIPWAY_INGRESS == haproxy ]] && echo "HAProxy's map" || echo "Caddy's config") (SLIPWAY_INGRESS=$SLIPWAY_INGRESS)"
  bash "$REPO_ROOT/deploy/platform.sh" restart agent
fi
bash "$REPO_ROOT/deploy/platform.sh" start agent
if [[ $SLIPWAY_INGRESS == caddy ]] && haproxy_running; then
  # Every route HAProxy's map holds is in Caddy's config again before Caddy takes the ingress port (30 s at most).
  routes_back() {
    local want have
    want=$(grep -c . "$SLIPWAY_HAPROXY_DIR/ingress.map" 2>/dev/null || true)
    have=$(curl -fsS http://127.0.0.1:2019/config/apps/http/servers/ingress/routes | grep -o '"@id":"app-' | wc -l)
    ((have >= ${want:-0}))
  }
  deadline=$((SECONDS + 30))
  until routes_back 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.5; done
  ingress_to_caddy
fi

wait_for 90 "readiness (database, Redis, agent)" curl -fsS "http://127.0.0.1:${API_PORT}/readyz"
# The API that answered must be the one started above, not an orphan holding the port with old code or settings.
if [[ -f $SLIPWAY_RUN_DIR/api.boot-id ]]; then
  answered=$(curl -fsS "http://127.0.0.1:${API_PORT}/readyz" | grep -o '"bootId":"[^"]*"' | cut -d'"' -f4 || true)
  [[ $answered == "$(<"$SLIPWAY_RUN_DIR/api.boot-id")" ]] ||
    die "the API answering on port ${API_PORT} is not the one setup started (boot id ${answered:-none}, expected $(<"$SLIPWAY_RUN_DIR/api.boot-id")): another process holds the port ($(ss -Hltnp "sport = :${API_PORT}" 2>/dev/null)); run deploy/platform.sh restart api"
fi
say "Slipway is running: web console http://localhost:${API_PORT}/  API http://localhost:${API_PORT}/v1  (readiness: /readyz, reference: /docs)"
say "apps are served at http://<subdomain>.${SLIPWAY_APPS_DOMAIN}:${SLIPWAY_INGRESS_HTTP_PORT}; setup took $((SECONDS - started))s"
