#!/usr/bin/env bash
# A fleet on this one machine, for trying several servers by hand (issue 31; tests use @slipway/testing/fleet,
# which runs the same functions). Each extra server gets a network namespace with an address from 198.18.0.0/15,
# its own Docker engine and Caddy, and an agent that joins the platform of deploy/setup.sh with a one-time token,
# exactly as a real server does (docs/decisions/0031-fleet-on-one-machine.md).
#   deploy/fleet.sh up N            servers 1..N (already running ones are kept), enrolled and running
#   deploy/fleet.sh down            every server stopped and removed, even after a crashed run
#   deploy/fleet.sh status          each server: address, engine, Caddy, HAProxy (SLIPWAY_INGRESS=haproxy), agent
#   deploy/fleet.sh cut I | mend I  takes server I's link down / up (a partition, as the tests make one)
# Lower level (the test harness): net-up, server-up I, server-down I, load-images I IMAGE...
set -euo pipefail
source "$(dirname "$0")/lib/services.sh"
source "$(dirname "$0")/lib/fleet.sh"

ENV_FILE=${SLIPWAY_ENV_FILE:-/etc/slipway/slipway.env}
# Images a server needs to run what the platform deploys (the busybox test image when present).
FLEET_IMAGES=(${SLIPWAY_FLEET_IMAGES:-slipway/node:24 slipway/static:2 slipway/postgres:15 slipway/redis:7.0})

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

agent_up() {
  local i=$1 run="$FLEET_RUN/$1" addr api_port token
  addr=$(fleet_address "$i")
  [[ -f $ENV_FILE ]] || die "$ENV_FILE is missing: run deploy/setup.sh first (the servers join its control plane)"
  # shellcheck disable=SC1090
  api_port=$(set -a; source "$ENV_FILE"; echo "${SLIPWAY_API_PORT:-7070}")
  local env=(
    SLIPWAY_MODE=production SLIPWAY_LOG_LEVEL=info
    SLIPWAY_AGENT_LISTEN="$addr:7443" SLIPWAY_AGENT_DATA_DIR="$FLEET_ROOT/$i/agent" SLIPWAY_AGENT_NODE_NAME="fleet-$i"
    SLIPWAY_AGENT_PUBLIC_IPV4="$addr" DOCKER_SOCKET="$run/docker.sock" SLIPWAY_CADDY_ADMIN_URL=http://127.0.0.1:2019
  )
  if [[ $SLIPWAY_INGRESS == haproxy ]]; then env+=(SLIPWAY_HAPROXY_DIR="$(fleet_haproxy_dir "$i")"); fi
  if [[ ! -f $FLEET_ROOT/$i/agent/tls/agent.crt ]]; then
    token=$(cd "$REPO_ROOT" && set -a && source "$ENV_FILE" && set +a && apps/cli/bin/slipway-admin enroll-token create --json |
      node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).token))')
    # The API listens on the host's loopback; the server reaches the host at the bridge's address.
    env "${env[@]}" nsenter --net="/run/netns/$(fleet_ns "$i")" "$REPO_ROOT/apps/agent/bin/slipway-agent" join \
      --url "http://$FLEET_HOST_ADDRESS:$api_port" --token "$token"
  fi
  if ! fleet_alive "$run/agent.pid"; then
    env "${env[@]}" setsid nsenter --net="/run/netns/$(fleet_ns "$i")" "$REPO_ROOT/apps/agent/bin/slipway-agent" run \
      </dev/null >"$run/agent.log" 2>&1 &
    echo $! >"$run/agent.pid"
  fi
}

case ${1:-} in
  net-up) need_root; fleet_net_up ;;
  server-up) need_root; fleet_server_up "${2:?server index}" ;;
  server-down) need_root; fleet_server_down "${2:?server index}" ;;
  load-images) need_root; i=${2:?server index}; shift 2; fleet_load_images "$i" "$@" ;;
  up)
    need_root
    n=${2:?how many servers}
    [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 200)) || die "N must be 1..200"
    for ((i = 1; i <= n; i++)); do
      say "server fleet-$i ($(fleet_address "$i"))"
      fleet_server_up "$i"
      images=()
      for image in "${FLEET_IMAGES[@]}" slipway-test/busybox:1; do docker image inspect "$image" >/dev/null 2>&1 && images+=("$image"); done
      fleet_load_images "$i" "${images[@]}"
      agent_up "$i"
    done
    say "the servers' agents serve gRPC on 198.18.0.11.. (logs: $FLEET_RUN/<i>/agent.log); slipway-admin nodes lists them"
    say "the control plane must reach them and they it: SLIPWAY_API_HOST must not be 127.0.0.1 only (try 0.0.0.0 behind a firewall, or $FLEET_HOST_ADDRESS)"
    ;;
  down) need_root; fleet_down; say "the fleet is gone" ;;
  cut) need_root; ip link set "slwf${2:?server index}h" down ;;
  mend) need_root; ip link set "slwf${2:?server index}h" up ;;
  status)
    for i in $(fleet_indexes | sort -un); do
      run="$FLEET_RUN/$i"
      printf 'fleet-%s %s  engine:%s caddy:%s haproxy:%s agent:%s link:%s\n' "$i" "$(fleet_address "$i")" \
        "$(fleet_alive "$run/docker.pid" && echo up || echo down)" "$(fleet_alive "$run/caddy.pid" && echo up || echo down)" \
        "$(fleet_alive "$run/haproxy.pid" && echo up || echo none)" \
        "$(fleet_alive "$run/agent.pid" && echo up || echo down)" "$(cat "/sys/class/net/slwf${i}h/operstate" 2>/dev/null || echo none)"
    done
    ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 2 ;;
esac
