# shellcheck shell=bash
# Installs and starts the services Slipway needs on one Debian/Ubuntu machine, idempotently:
# each function checks first and only acts on what is missing or stopped. Sourced by
# deploy/setup.sh and deploy/test.sh. There may be no systemd (containers, CI): daemons are
# started directly and their logs go to $SLIPWAY_LOG_DIR.

SLIPWAY_LOG_DIR=${SLIPWAY_LOG_DIR:-/var/log/slipway}
SLIPWAY_RUN_DIR=${SLIPWAY_RUN_DIR:-/run/slipway}
SLIPWAY_INGRESS_HTTP_PORT=${SLIPWAY_INGRESS_HTTP_PORT:-80}
# The ingress (decision 0040): `haproxy` (the default: HAProxy on the ingress port holding the app routes in its runtime
# map, each change in constant time; Caddy behind it on an internal loopback port for custom domains' TLS and
# certificates, ACME challenges, other servers' apps and the 404) or `caddy` (Caddy alone on the ingress port, every app
# route a reload of its whole config). Setup run again with the other value switches the machine over.
SLIPWAY_INGRESS=${SLIPWAY_INGRESS:-haproxy}
[[ $SLIPWAY_INGRESS == haproxy || $SLIPWAY_INGRESS == caddy ]] ||
  { printf 'error: SLIPWAY_INGRESS is "%s": it is haproxy (the default) or caddy\n' "$SLIPWAY_INGRESS" >&2; exit 1; }
SLIPWAY_HAPROXY_DIR=${SLIPWAY_HAPROXY_DIR:-/var/lib/slipway/haproxy}
# HAProxy's worker threads: half the CPUs, at least one (the apps share the cores; decision 0040).
SLIPWAY_HAPROXY_THREADS=${SLIPWAY_HAPROXY_THREADS:-$(($(nproc 2>/dev/null || echo 2) / 2 > 1 ? $(nproc 2>/dev/null || echo 2) / 2 : 1))}
# Caddy's HTTP listener behind HAProxy (loopback only).
SLIPWAY_CADDY_INTERNAL_HTTP_PORT=${SLIPWAY_CADDY_INTERNAL_HTTP_PORT:-8079}
REPO_ROOT=${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=deploy/lib/node.sh
source "$(dirname "${BASH_SOURCE[0]}")/node.sh"
# shellcheck source=deploy/lib/units.sh
source "$(dirname "${BASH_SOURCE[0]}")/units.sh"
# V8 flags of the platform's processes: a 4 MB young generation (default: semi-spaces grow to 16 MB) keeps an idle
# API ~20 MB smaller (bench/idle). 2 MB saves ~5 MB more but cost the API's requests/s in bench/api here.
# Two V8 helper threads instead of four (garbage collection and compilation in the background): each keeps its own
# malloc arena, the worker idles ~10-20 MB smaller, no CPU difference measured (decision 0042). bench/idle reads this line.
# shellcheck disable=SC2034 # used by platform.sh and units.sh
SLIPWAY_NODE_FLAGS=(--max-semi-space-size=4 --v8-pool-size=2)
# The agent's environment beyond its settings: two malloc arenas, not glibc's eight per core. Its threads (libuv's
# file system pool, V8's helpers) each kept an arena of their own garbage: at 1,000 apps 115 MB against 121 in
# bench/idle (decision 0042). The API and the worker keep glibc's default (the same setting made them no smaller).
# platform.sh, units.sh and bench/idle read this line.
# shellcheck disable=SC2034 # used by platform.sh and units.sh
SLIPWAY_AGENT_ENV=(MALLOC_ARENA_MAX=2)

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

need_root() {
  [[ $(id -u) == 0 ]] || die "run as root (it installs packages and starts services)"
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls until COMMAND succeeds.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what did not come up within ${seconds}s (logs: $SLIPWAY_LOG_DIR)"
    sleep 0.3
  done
}

ensure_packages() {
  local missing=()
  command -v pg_ctlcluster >/dev/null || missing+=(postgresql)
  command -v psql >/dev/null || missing+=(postgresql-client)
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v caddy >/dev/null || missing+=(caddy)
  # The ingress's route map (decision 0040; its integration tests need it whichever ingress the machine runs).
  command -v haproxy >/dev/null || missing+=(haproxy)
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  [[ -x /bin/busybox ]] || missing+=(busybox-static)
  command -v zip >/dev/null || missing+=(zip)
  command -v unzip >/dev/null || missing+=(unzip)
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)
  # Custom domains' tests and benchmark (issue 14): a resolver the agent asks and an ACME CA (started by the tests).
  command -v dnsmasq >/dev/null || missing+=(dnsmasq-base)
  command -v pebble >/dev/null || missing+=(pebble)
  # The GitHub API double serves `git archive` of repositories the tests make with git (issue 16).
  command -v git >/dev/null || missing+=(git)
  # Managed databases' integration tests (issue 12): the engines' own clients, and ip for a network namespace.
  command -v mariadb >/dev/null || missing+=(mariadb-client)
  command -v redis-cli >/dev/null || missing+=(redis-tools)
  command -v ip >/dev/null || missing+=(iproute2)
  if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Package scripts may try to start services through systemd, which is absent here: that is fine,
    # the functions below start them.
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$SLIPWAY_LOG_DIR/apt.log" 2>&1 ||
      die "apt-get install failed (see $SLIPWAY_LOG_DIR/apt.log)"
  fi
}

start_postgres() {
  local version
  version=$(ls /usr/lib/postgresql | sort -n | tail -1)
  if ! pg_lsclusters -h 2>/dev/null | grep -q .; then
    pg_createcluster "$version" main >/dev/null
  fi
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    say "starting PostgreSQL $version"
    pg_ctlcluster "$version" main start
    wait_for 30 PostgreSQL pg_isready -q -h 127.0.0.1 -p 5432
  fi
}

# ensure_role NAME PASSWORD [ATTRIBUTES]: creates the role when missing and sets its password.
ensure_role() {
  local name=$1 password=$2 attrs=${3:-}
  su postgres -c "psql -qtAX -v ON_ERROR_STOP=1" <<SQL >/dev/null
SELECT 'CREATE ROLE $name LOGIN $attrs' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$name') \gexec
ALTER ROLE $name WITH LOGIN $attrs PASSWORD '$password';
SQL
}

ensure_database() {
  local name=$1 owner=$2
  su postgres -c "psql -qtAX -v ON_ERROR_STOP=1" <<SQL >/dev/null
SELECT 'CREATE DATABASE $name OWNER $owner' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = '$name') \gexec
SQL
}

# Redis as BullMQ's makers advise: an append-only file synced every second (a crash loses at most a
# second of queue state) and noeviction (an evicted job key silently breaks a queue).
REDIS_SETTINGS=(appendonly yes appendfsync everysec maxmemory-policy noeviction)

start_redis() {
  if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
    say "starting Redis"
    mkdir -p /var/lib/redis
    local flags=() i
    for ((i = 0; i < ${#REDIS_SETTINGS[@]}; i += 2)); do flags+=("--${REDIS_SETTINGS[i]}" "${REDIS_SETTINGS[i + 1]}"); done
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --dir /var/lib/redis \
      --logfile "$SLIPWAY_LOG_DIR/redis.log" --save 60 1000 "${flags[@]}"
    wait_for 15 Redis redis-cli -h 127.0.0.1 -p 6379 ping
  fi
  ensure_redis_settings
}

# A Redis that was already running (Debian's service, an older setup) gets the settings at run time, no
# restart; CONFIG REWRITE keeps them in its configuration file when it has one.
ensure_redis_settings() {
  local i key want got changed=0
  for ((i = 0; i < ${#REDIS_SETTINGS[@]}; i += 2)); do
    key=${REDIS_SETTINGS[i]} want=${REDIS_SETTINGS[i + 1]}
    got=$(redis-cli -h 127.0.0.1 -p 6379 --raw config get "$key" | sed -n 2p)
    if [[ $got != "$want" ]]; then
      say "Redis: $key $want (was ${got:-unset})"
      redis-cli -h 127.0.0.1 -p 6379 config set "$key" "$want" >/dev/null || die "Redis refused CONFIG SET $key $want"
      changed=1
    fi
  done
  if ((changed)) && [[ -n $(redis-cli -h 127.0.0.1 -p 6379 --raw config get config_file 2>/dev/null | sed -n 2p) ]]; then
    redis-cli -h 127.0.0.1 -p 6379 config rewrite >/dev/null || true
  fi
}

# The Docker engine with `userland-proxy: false`: published ports go through kernel NAT instead of one
# docker-proxy process per port (faster, and a port whose container is gone refuses connections instead of
# accepting them). Other keys of an existing daemon.json are kept.
DOCKER_DAEMON_JSON=${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}

# ensure_docker_config: writes the setting when missing; succeeds when the file changed.
ensure_docker_config() {
  mkdir -p "$(dirname "$DOCKER_DAEMON_JSON")"
  node - "$DOCKER_DAEMON_JSON" <<'JS'
const fs = require('node:fs');
const file = process.argv[2];
let config = {};
try { config = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { if (e.code !== 'ENOENT') throw e; }
if (config['userland-proxy'] === false) process.exit(1);
config['userland-proxy'] = false;
fs.writeFileSync(file, JSON.stringify(config, null, 2) + '\n');
JS
}

dockerd_pid() { pgrep -xo dockerd; }

# True when the running engine started before daemon.json last changed (its settings are not in effect).
docker_config_stale() {
  local pid started changed
  pid=$(dockerd_pid) || return 1
  [[ -f $DOCKER_DAEMON_JSON ]] || return 1
  started=$(date -d "$(ps -o lstart= -p "$pid")" +%s)
  changed=$(stat -c %Y "$DOCKER_DAEMON_JSON")
  ((changed > started))
}

start_docker() {
  if ensure_docker_config; then say "Docker engine: userland-proxy false ($DOCKER_DAEMON_JSON)"; fi
  if docker info >/dev/null 2>&1 && docker_config_stale && [[ ${SLIPWAY_RESTART_DOCKER:-1} == 0 ]]; then
    say "the Docker engine started before $DOCKER_DAEMON_JSON changed: its settings apply at its next restart (SLIPWAY_RESTART_DOCKER=0)"
  elif docker info >/dev/null 2>&1 && docker_config_stale; then
    # Containers with a restart policy (every app's) come back with the engine.
    say "restarting the Docker engine to apply $DOCKER_DAEMON_JSON"
    if [[ -d /run/systemd/system ]]; then
      systemctl restart docker
    else
      local pid
      pid=$(dockerd_pid)
      kill -TERM "$pid"
      wait_for 60 "the Docker engine to stop" bash -c "! kill -0 $pid"
    fi
  fi
  if ! docker info >/dev/null 2>&1; then
    say "starting the Docker engine"
    # containerd is started by dockerd itself when not running.
    nohup dockerd >"$SLIPWAY_LOG_DIR/dockerd.log" 2>&1 &
    wait_for 60 "the Docker engine" docker info
  fi
}

# ingress_handover [NETNS]: a Caddy config change opens new listeners beside the old ones (SO_REUSEPORT) and closes
# the old; without tcp_migrate_req (Linux 5.14+, per network namespace) the connections waiting in the old listener's
# queue are reset, which a client sees as ECONNRESET during a rollout. With it they move to the new listener.
ingress_handover() {
  local run=(sysctl -qw net.ipv4.tcp_migrate_req=1)
  [[ -n ${1:-} ]] && run=(ip netns exec "$1" "${run[@]}")
  # Kept across reboots on the host (a test server's namespace is made again each time).
  if [[ -z ${1:-} && -d /etc/sysctl.d && ! -f /etc/sysctl.d/60-slipway-ingress.conf ]]; then
    echo "net.ipv4.tcp_migrate_req = 1" >/etc/sysctl.d/60-slipway-ingress.conf 2>/dev/null || true
  fi
  "${run[@]}" 2>/dev/null ||
    echo "warning: could not set net.ipv4.tcp_migrate_req=1 (Linux 5.14+): connections arriving while the ingress reloads may be reset" >&2
}

# caddy_bootstrap FILE: Caddy's starting config: its `ingress` server on the ingress port, or with HAProxy in front on
# 127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT (also its `http_port`, where it answers ACME HTTP-01 challenges).
caddy_bootstrap() {
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then
    sed -e "s/\":__HTTP_PORT__\"/\"127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT\"/" \
      -e "s/\"http\": {/\"http\": { \"http_port\": $SLIPWAY_CADDY_INTERNAL_HTTP_PORT,/" "$REPO_ROOT/deploy/caddy/bootstrap.json" >"$1"
  else
    sed "s/__HTTP_PORT__/$SLIPWAY_INGRESS_HTTP_PORT/" "$REPO_ROOT/deploy/caddy/bootstrap.json" >"$1"
  fi
}

# With systemd as PID 1 the ingress runs as units (deploy/lib/units.sh: slipway-caddy, slipway-haproxy), so a rebooted
# server comes back with it; elsewhere (containers, CI) its daemons are started directly, as the other services.
ingress_systemd() { [[ -d /run/systemd/system ]]; }
# Caddy's starting config under systemd (a run directory does not outlive a reboot).
SLIPWAY_CADDY_CONFIG=${SLIPWAY_CADDY_CONFIG:-/etc/slipway/caddy.json}

# caddy_listen: where Caddy's `ingress` server listens now (its admin API; empty when it has no such server).
caddy_listen() { curl -fsS http://127.0.0.1:2019/config/apps/http/servers/ingress/listen 2>/dev/null | tr -d '[]" \n'; }

# The address Caddy's `ingress` server is wanted on: behind HAProxy, or on the ingress port itself.
caddy_listen_wanted() {
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then echo "127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT"; else echo ":$SLIPWAY_INGRESS_HTTP_PORT"; fi
}

# caddy_move_listener: a running Caddy's `ingress` listener (and its `http_port`, where ACME HTTP-01 challenges are
# answered) moved to where the current ingress wants it, through the admin API: its routes stay.
caddy_move_listener() {
  local want
  want=$(caddy_listen_wanted)
  say "Caddy's ingress listener moves to $want (SLIPWAY_INGRESS=$SLIPWAY_INGRESS)"
  curl -fsS -X PATCH -H 'Content-Type: application/json' -d "[\"$want\"]" \
    http://127.0.0.1:2019/config/apps/http/servers/ingress/listen >/dev/null || die "Caddy refused to move its ingress listener to $want"
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then
    curl -fsS -X PUT -H 'Content-Type: application/json' -d "$SLIPWAY_CADDY_INTERNAL_HTTP_PORT" \
      http://127.0.0.1:2019/config/apps/http/http_port >/dev/null 2>&1 ||
      curl -fsS -X PATCH -H 'Content-Type: application/json' -d "$SLIPWAY_CADDY_INTERNAL_HTTP_PORT" \
        http://127.0.0.1:2019/config/apps/http/http_port >/dev/null || die "Caddy refused its internal http_port"
  else
    # Back to Caddy's default (80), as in its bootstrap config.
    curl -fsS -X DELETE http://127.0.0.1:2019/config/apps/http/http_port >/dev/null 2>&1 || true
  fi
}

start_caddy() {
  ingress_handover
  if ingress_systemd; then
    install_ingress_units
  elif ! curl -fsS http://127.0.0.1:2019/config/ >/dev/null 2>&1; then
    say "starting Caddy (ingress on $(caddy_listen_wanted), admin API on 127.0.0.1:2019)"
    local config="$SLIPWAY_RUN_DIR/caddy.json"
    caddy_bootstrap "$config"
    (cd "$SLIPWAY_RUN_DIR" && caddy start --config "$config" >"$SLIPWAY_LOG_DIR/caddy-start.log" 2>&1) ||
      die "Caddy did not start (see $SLIPWAY_LOG_DIR/caddy-start.log)"
    wait_for 15 Caddy curl -fsS http://127.0.0.1:2019/config/
  fi
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then
    # A Caddy that ran alone before: its listener moves behind HAProxy first (the ingress port becomes HAProxy's;
    # until the agent writes its map, every host falls through to Caddy, which still holds the app routes).
    [[ $(caddy_listen) == "$(caddy_listen_wanted)" ]] || caddy_move_listener
    start_haproxy
  elif haproxy_running; then
    # Back to Caddy alone. deploy/setup.sh defers this until its agent runs without HAProxy and has put its routes
    # back into Caddy (SLIPWAY_INGRESS_SWITCH=defer): until then HAProxy keeps serving from its map.
    if [[ ${SLIPWAY_INGRESS_SWITCH:-now} == defer ]]; then
      say "the ingress becomes Caddy alone once the agent has put its routes back into Caddy (HAProxy serves until then)"
    else
      ingress_to_caddy
    fi
  elif [[ $(caddy_listen) != "$(caddy_listen_wanted)" ]]; then
    caddy_move_listener
  fi
}

# ingress_to_caddy: HAProxy stops and Caddy's listener takes the ingress port again (SLIPWAY_INGRESS=caddy).
ingress_to_caddy() {
  say "stopping HAProxy: Caddy alone takes the ingress port :$SLIPWAY_INGRESS_HTTP_PORT again"
  stop_haproxy
  [[ $(caddy_listen) == "$(caddy_listen_wanted)" ]] || caddy_move_listener
}

# haproxy_env DIR PORT CADDY_ADDRESS: the environment deploy/haproxy/haproxy.cfg reads.
haproxy_env() {
  echo "SLIPWAY_HAPROXY_DIR=$1" "SLIPWAY_INGRESS_HTTP_ADDRESS=" "SLIPWAY_INGRESS_HTTP_PORT=$2" "SLIPWAY_CADDY_HTTP_ADDRESS=$3" "SLIPWAY_HAPROXY_THREADS=$SLIPWAY_HAPROXY_THREADS"
}

haproxy_running() {
  if ingress_systemd; then
    systemctl is-active -q slipway-haproxy 2>/dev/null
  else
    local pidfile="$SLIPWAY_RUN_DIR/haproxy.pid"
    [[ -f $pidfile ]] && kill -0 "$(head -1 "$pidfile")" 2>/dev/null
  fi
}

# start_haproxy: HAProxy in master-worker mode from deploy/haproxy/haproxy.cfg (its map file, admin and own sockets
# under $SLIPWAY_HAPROXY_DIR; the agent keeps the map, SLIPWAY_HAPROXY_DIR in its environment). `kill -USR2` of the
# master reloads it (the listeners handed over, expose-fd listeners). Under systemd: the unit slipway-haproxy.
start_haproxy() {
  local pidfile="$SLIPWAY_RUN_DIR/haproxy.pid"
  mkdir -p "$SLIPWAY_HAPROXY_DIR"
  [[ -f $SLIPWAY_HAPROXY_DIR/ingress.map ]] || : >"$SLIPWAY_HAPROXY_DIR/ingress.map"
  haproxy_running && return 0
  say "starting HAProxy (ingress on :$SLIPWAY_INGRESS_HTTP_PORT, its map in $SLIPWAY_HAPROXY_DIR, Caddy behind on 127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT)"
  if ingress_systemd; then
    systemctl enable -q slipway-haproxy
    systemctl start slipway-haproxy || die "HAProxy did not start (journalctl -u slipway-haproxy)"
  else
    # shellcheck disable=SC2046 # one word per variable
    env $(haproxy_env "$SLIPWAY_HAPROXY_DIR" "$SLIPWAY_INGRESS_HTTP_PORT" "127.0.0.1:$SLIPWAY_CADDY_INTERNAL_HTTP_PORT") \
      haproxy -W -D -p "$pidfile" -f "$REPO_ROOT/deploy/haproxy/haproxy.cfg" >"$SLIPWAY_LOG_DIR/haproxy.log" 2>&1 ||
      die "HAProxy did not start (see $SLIPWAY_LOG_DIR/haproxy.log)"
  fi
  wait_for 15 HAProxy test -S "$SLIPWAY_HAPROXY_DIR/admin.sock"
}

# stop_haproxy: HAProxy stopped (and, under systemd, no longer started at boot); its map file stays.
stop_haproxy() {
  if ingress_systemd; then
    systemctl disable -q --now slipway-haproxy 2>/dev/null || true
    return 0
  fi
  local pidfile="$SLIPWAY_RUN_DIR/haproxy.pid" pid
  [[ -f $pidfile ]] || return 0
  pid=$(head -1 "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait_for 15 "HAProxy to stop" bash -c "! kill -0 $pid"
  fi
  rm -f "$pidfile" "$SLIPWAY_HAPROXY_DIR/admin.sock" "$SLIPWAY_HAPROXY_DIR/own.sock"
}

# ensure_ingress_env FILE: the agent's SLIPWAY_HAPROXY_DIR in the environment file when HAProxy is the ingress, and not
# when Caddy alone is. Succeeds when it changed the file (the agent must be restarted to follow).
ensure_ingress_env() {
  local file=$1
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then
    grep -qxF "SLIPWAY_HAPROXY_DIR=$SLIPWAY_HAPROXY_DIR" "$file" && return 1
    sed -i '/^SLIPWAY_HAPROXY_DIR=/d' "$file"
    echo "SLIPWAY_HAPROXY_DIR=$SLIPWAY_HAPROXY_DIR" >>"$file"
  else
    grep -q '^SLIPWAY_HAPROXY_DIR=' "$file" || return 1
    sed -i '/^SLIPWAY_HAPROXY_DIR=/d' "$file"
  fi
  say "SLIPWAY_HAPROXY_DIR $([[ $SLIPWAY_INGRESS == haproxy ]] && echo "set to $SLIPWAY_HAPROXY_DIR" || echo removed) in $file (SLIPWAY_INGRESS=$SLIPWAY_INGRESS)"
}

start_services() {
  mkdir -p "$SLIPWAY_LOG_DIR" "$SLIPWAY_RUN_DIR"
  ensure_packages
  ensure_node
  start_postgres
  start_redis
  start_docker
  start_caddy
}

install_node_deps() {
  say "installing Node dependencies"
  (cd "$REPO_ROOT" && pnpm install --frozen-lockfile --reporter=silent) || die "pnpm install failed"
  # `prisma generate` never runs the schema engine; any existing file satisfies its lookup offline.
  (cd "$REPO_ROOT" && PRISMA_SCHEMA_ENGINE_BINARY=/bin/true npx prisma generate >/dev/null) || die "prisma generate failed"
}
